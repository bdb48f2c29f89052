// The compact JSON an extraction job streams to its output file while the sheets are read
// (extraction.ts JsonDocument, through a ByteSink that flushes) must be byte for byte the JSON the
// extraction serialises from memory — also when a sheet's rows written while reading are taken back and
// written again from the store (rows out of order, markup the fast parser leaves to the tokenizer), when
// a sheet has no values, and when the taking back reaches bytes already flushed to the file.
import { closeSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ByteSink } from '../src/extract/byte-sink.js';
import { extractWorkbook } from '../src/extract/extract-workbook.js';
import { extractJob } from '../src/jobs/extract-job.js';
import { FIXTURES, row, tempDir, type TempDir } from './extract-helpers.js';

let tmp: TempDir;
beforeAll(async () => {
  tmp = await tempDir('exstruct-json-document-');
});
afterAll(() => tmp.remove());

/** A flushing sink of `chunk` bytes over a growing buffer that stands for the file (offsets honoured). */
function fileSink(chunk: number): { sink: ByteSink; bytes: () => Buffer } {
  let file = Buffer.alloc(0);
  const sink = new ByteSink(chunk, (bytes, offset) => {
    if (offset + bytes.length > file.length) {
      const grown = Buffer.alloc(Math.max(offset + bytes.length, file.length * 2));
      file.copy(grown);
      file = grown;
    }
    file.set(bytes, offset);
  });
  return {
    sink,
    bytes: () => {
      const length = sink.finish();
      return file.subarray(0, length);
    },
  };
}

const cells = (r: number, n: number) =>
  row(
    r,
    Array.from(
      { length: n },
      (_, c) => `<c r="${String.fromCharCode(65 + c)}${r}"><v>${r * 10 + c}.5</v></c>`,
    ).join(''),
  );

async function workbook(): Promise<string> {
  const many = (from: number) => Array.from({ length: 40 }, (_, i) => cells(from + i, 6)).join('');
  return tmp.package('streamed.xlsx', {
    sharedStrings: ['名前', 'a "quoted" text'],
    sheets: [
      { name: 'plain', body: `<sheetData>${many(1)}</sheetData>` },
      { name: 'empty', body: '<sheetData/>' },
      // Rows out of order: the JSON written while reading is taken back, the rows written from the store.
      { name: 'unordered', body: `<sheetData>${cells(5, 3)}${cells(2, 3)}${many(6)}</sheetData>` },
      { name: 'blank cells', body: `<sheetData>${row(1, '<c r="A1" t="s"/>')}</sheetData>` },
      // A comment among the rows: the fast parser gives the sheet to the tokenizer.
      {
        name: 'commented',
        body: `<sheetData>${cells(1, 4)}<!-- note -->${row(2, '<c r="A2" t="s"><v>1</v></c>')}${many(3)}</sheetData><mergeCells count="1"><mergeCell ref="A1:B2"/></mergeCells>`,
      },
      { name: 'last', body: `<sheetData>${row(1, '<c r="B1" t="s"><v>0</v></c>')}</sheetData>` },
    ],
  });
}

describe('the JSON document streamed while reading', () => {
  it('is the JSON serialised from memory, whatever the chunk size, with letter keys or not', async () => {
    const files = [
      await workbook(),
      path.join(FIXTURES, 'basic__sample.xlsx'),
      path.join(FIXTURES, 'ja_general_form__ja_form.xlsx'),
      path.join(FIXTURES, 'flowchart__sample-shape-connector.xlsx'),
    ];
    for (const file of files) {
      for (const alphaCol of [false, true]) {
        const expected = (await extractWorkbook(file, { alphaCol })).serialize('json');
        // 64-byte chunks: the rows of a sheet are flushed before the sheet is done and taken back.
        for (const chunk of [64, 1 << 20]) {
          const { sink, bytes } = fileSink(chunk);
          await extractWorkbook(file, { alphaCol, document: sink });
          expect(bytes().toString('utf8'), `${path.basename(file)} alpha ${alphaCol} chunk ${chunk}`).toBe(
            expected,
          );
        }
        // Rows let go sheet by sheet once written (keepRows: false): the same document, no rows kept.
        const { sink, bytes } = fileSink(1 << 20);
        const light = await extractWorkbook(file, { alphaCol, document: sink, keepRows: false });
        expect(bytes().toString('utf8'), `${path.basename(file)} without rows`).toBe(expected);
        expect(light.sheets.every((sheet) => sheet.rows === undefined)).toBe(true);
      }
    }
  });

  it('is what the extraction job writes to its output file, cutting off what a longer run left there', async () => {
    const file = await workbook();
    const out = path.join(tmp.dir, 'out.json');
    // Longer than the output: the job must cut the file to its own length.
    await tmp.file('out.json', 'x'.repeat(200_000));
    const fd = openSync(file, 'r');
    const output = openSync(out, 'r+');
    try {
      const answer = await extractJob(
        {
          file,
          mode: 'standard',
          alphaCol: false,
          format: 'json',
          serialize: {},
          sheetFiles: false,
          printAreaFiles: false,
          outputFd: output,
        },
        fd,
      );
      expect(answer.sheetNames).toEqual(['plain', 'empty', 'unordered', 'blank cells', 'commented', 'last']);
    } finally {
      closeSync(fd);
      closeSync(output);
    }
    expect(readFileSync(out, 'utf8')).toBe((await extractWorkbook(file)).serialize('json'));
  });
});
