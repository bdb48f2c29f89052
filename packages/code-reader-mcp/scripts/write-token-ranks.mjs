// Build step: writes dist/o200k_base.ranks, the o200k rank table of the installed gpt-tokenizer in the
// compact binary form src/tokens/rank-table.ts loads in a few ms (its JSON form cost a first count
// ~0.5 s of CPU). Each rank's key is the bytes gpt-tokenizer's lookup finds it by: a string token's
// UTF-8, a byte token's bytes when they are not valid UTF-8 (valid ones are looked up as strings, so
// gpt-tokenizer never finds them during a merge: they get no key). The checks below fail the build
// if a new gpt-tokenizer breaks what src/tokens/bpe-count.ts assumes.
import { renameSync, writeFileSync } from 'node:fs';
import { TextEncoder } from 'node:util';
import { fileURLToPath } from 'node:url';
import ranks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { GptEncoding } from 'gpt-tokenizer/GptEncoding';
import { RANK_TABLE_FILE, encodeRankTable } from '../dist/tokens/rank-table.js';

const core = GptEncoding.getEncodingApi('o200k_base', () => ranks).bytePairEncodingCoreProcessor;
const encoder = new TextEncoder();
const bytesKeys = new Set();
const keys = ranks.map((value, rank) => {
  if (typeof value === 'string') {
    if (!value.isWellFormed()) throw new Error(`Token ${rank} is not well-formed text.`);
    return encoder.encode(value);
  }
  const bytes = new Uint8Array(value);
  if (core.getBpeRankFromBytes(bytes) !== rank) return undefined; // valid UTF-8: never found as bytes
  const key = bytes.join(',');
  if (bytesKeys.has(key)) throw new Error(`Byte token ${rank} appears twice.`);
  bytesKeys.add(key);
  return bytes;
});

const file = fileURLToPath(new URL(`../dist/${RANK_TABLE_FILE}`, import.meta.url));
writeFileSync(`${file}.tmp`, encodeRankTable(keys));
renameSync(`${file}.tmp`, file);
