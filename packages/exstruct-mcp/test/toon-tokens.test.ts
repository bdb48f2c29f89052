// Token economy of TOON (issue 16): on the shared fixtures, what a model reads in TOON costs at most
// 0.8× the o200k tokens of the same information in compact JSON, for exstruct_extract's output files and
// for exstruct_read_json_chunk's answers, each read back to the same data. Deterministic (fixed files, a
// fixed tokenizer), so a unit test rather than a benchmark; the figures are in the README.
import { copyFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseToon } from '@mcp-workbench/core/engine';
import { fromToonLayout } from '../src/output/toon-layout.js';
import { connect, FIXTURES, tempDir, type Session, type TempDir } from './extract-helpers.js';

/** The fixtures with a golden output, in the golden's mode (as the benchmark's token table). */
const CASES = [
  ['basic__sample', 'standard'],
  ['en_form_sf425__sample', 'standard'],
  ['flowchart__sample-shape-connector', 'standard'],
  ['formula__formula', 'verbose'],
  ['gantt_chart__en__sample', 'verbose'],
  ['ja_general_form__ja_form', 'standard'],
  ['smartart__sample_smartart', 'standard'],
] as const;
const TARGET = 0.8;
/** A page size that splits the larger sheets into a few pages. */
const PAGE_BYTES = 3000;

let tmp: TempDir;
let session: Session;
beforeAll(async () => {
  tmp = await tempDir('exstruct-tokens-');
  for (const [name] of CASES)
    await copyFile(path.join(FIXTURES, `${name}.xlsx`), path.join(tmp.dir, `${name}.xlsx`));
  session = await connect(tmp.dir);
});
afterAll(async () => {
  await session.close();
  await tmp.remove();
});

interface Chunk {
  next_cursor: string | null;
  warnings: string[];
  chunk: unknown;
}

async function extract(name: string, mode: string, format: 'json' | 'toon'): Promise<string> {
  const result = await session.call<{ out_path: string; workbook_meta: { sheet_names: string[] } }>(
    'exstruct_extract',
    { xlsx_path: `${name}.xlsx`, mode, format },
  );
  expect(result.isError, result.text).toBe(false);
  return result.structured.out_path;
}

/** Every answer of read_json_chunk for one output: the whole file, then each sheet page by page. */
async function chunkAnswers(
  outPath: string,
  sheets: string[],
): Promise<Array<{ text: string; data: unknown }>> {
  const answers: Array<{ text: string; data: unknown }> = [];
  const read = async (args: Record<string, unknown>) => {
    const result = await session.call<Chunk>('exstruct_read_json_chunk', { out_path: outPath, ...args });
    expect(result.isError, result.text).toBe(false);
    const chunk = result.structured.chunk;
    // A TOON answer carries the chunk in the table layout: read it back to the model to compare.
    const data = outPath.endsWith('.toon') ? fromToonLayout(chunk) : chunk;
    answers.push({ text: result.text, data: { ...result.structured, chunk: data } });
    return result.structured;
  };
  await read({ max_bytes: 1_000_000 });
  for (const sheet of sheets) {
    let cursor: string | null | undefined;
    do {
      cursor = (await read({ sheet, max_bytes: PAGE_BYTES, ...(cursor ? { cursor } : {}) })).next_cursor;
    } while (cursor);
  }
  return answers;
}

describe('o200k tokens of TOON against compact JSON, on the shared fixtures', () => {
  it(`exstruct_extract files and read_json_chunk answers: TOON ≤ ${TARGET}× JSON, same data`, async () => {
    const totals = { extract: { json: 0, toon: 0 }, chunk: { json: 0, toon: 0 } };
    for (const [name, mode] of CASES) {
      const jsonPath = await extract(name, mode, 'json');
      const toonPath = await extract(name, mode, 'toon');
      const jsonText = await readFile(jsonPath, 'utf8');
      const toonText = await readFile(toonPath, 'utf8');
      const model = JSON.parse(jsonText) as { sheets: Record<string, unknown> };
      expect(fromToonLayout(parseToon(toonText)), name).toEqual(model);
      totals.extract.json += countTokens(jsonText);
      totals.extract.toon += countTokens(toonText);

      const sheets = Object.keys(model.sheets);
      const jsonAnswers = await chunkAnswers(jsonPath, sheets);
      const toonAnswers = await chunkAnswers(toonPath, sheets);
      // The same pages with the same rows (cursors differ: they name their own file).
      expect(toonAnswers.length, name).toBe(jsonAnswers.length);
      toonAnswers.forEach((answer, i) => {
        const strip = (value: unknown) => ({
          ...(value as Chunk),
          next_cursor: (value as Chunk).next_cursor !== null,
        });
        expect(strip(answer.data), `${name} answer ${i}`).toEqual(strip(jsonAnswers[i]!.data));
      });
      for (const answer of jsonAnswers) totals.chunk.json += countTokens(answer.text);
      for (const answer of toonAnswers) totals.chunk.toon += countTokens(answer.text);
    }
    const ratio = (kind: keyof typeof totals) => totals[kind].toon / totals[kind].json;
    console.log(
      `o200k tokens, TOON / JSON: extract ${totals.extract.toon} / ${totals.extract.json} = ${ratio('extract').toFixed(3)}; ` +
        `read_json_chunk ${totals.chunk.toon} / ${totals.chunk.json} = ${ratio('chunk').toFixed(3)}`,
    );
    const overall = (totals.extract.toon + totals.chunk.toon) / (totals.extract.json + totals.chunk.json);
    expect(overall).toBeLessThanOrEqual(TARGET);
    expect(ratio('extract')).toBeLessThanOrEqual(TARGET);
    expect(ratio('chunk')).toBeLessThanOrEqual(TARGET);
  });
});
