// A fresh server's first extraction (issue 26 §1): once the client has finished the handshake and the
// server is idle, it starts its extraction thread (when: warm-up-after-handshake.test.ts), and the thread
// warms its code on a workbook made in memory (src/jobs/warm-up.ts) until the first job comes. The
// warm-up must exercise the readers a real extraction uses, and a first call made while it runs must give
// the same output as any later call.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { callTool, spawnStdioClient } from '@mcp-workbench/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractWorkbook } from '../src/extract/extract-workbook.js';
import { IDLE_MS } from '../src/jobs/idle-start.js';
import {
  quickWarmUp,
  quickWarmUpWorkbook,
  tinyWarmUpWorkbook,
  warmUp,
  warmUpWorkbook,
} from '../src/jobs/warm-up.js';
import { FIXTURES, packageParts, row, tempDir, zipBytes, type TempDir } from './extract-helpers.js';

const DIST = path.join(FIXTURES, '..', '..', 'dist');

let tmp: TempDir;
beforeAll(async () => {
  tmp = await tempDir('exstruct-warm-up-');
});
afterAll(async () => {
  await tmp?.remove();
});

describe('the warm-up workbook', () => {
  it('is read whole by the fast row reader, 6,000 rows of sheets each read in one piece', async () => {
    const bytes = warmUpWorkbook();
    const file = await tmp.file('warm-up.xlsx', bytes);
    const extraction = await extractWorkbook(file, { mode: 'standard' });
    expect(extraction.warnings).toEqual([]);
    expect(extraction.sheetNames).toHaveLength(70);
    expect(extraction.sheets.every((sheet) => sheet.parsedWith.fast)).toBe(true);
    const data = extraction.sheets.filter((sheet) => sheet.name.startsWith('Data'));
    expect(data.map((sheet) => sheet.rows?.rowCount ?? 0).reduce((a, b) => a + b)).toBe(6000);
    // No part over 128 KB (far below the 1 MiB of a sheet read as a stream): once freed, a bigger buffer
    // raises glibc's mmap threshold and the next calls' buffers stay resident in malloc's arenas. The
    // sizes are the central directory's (uncompressed, at offset 24 of each 46-byte record).
    let largest = 0;
    for (let at = bytes.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])); at >= 0;) {
      largest = Math.max(largest, bytes.readUInt32LE(at + 24));
      at = bytes.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), at + 46);
    }
    expect(largest).toBeGreaterThan(20_000);
    expect(largest).toBeLessThan(128 * 1024);
    const json = JSON.parse(extraction.serialize('json')) as {
      sheets: Record<string, { rows: Array<{ r: number; c: Record<string, unknown> }> }>;
    };
    expect(json.sheets.Data1!.rows[1]).toEqual({
      r: 2,
      c: { '0': 1, '1': 'East', '2': '2023-03-17', '3': 158.38, '4': 174.218 },
    });
    expect(json.sheets.S1!.rows[2]!.c).toMatchObject({ '5': 'item 3', '6': true, '9': '3x' });
    // Decimals below 1, with and without zeros after the point (each its own path in the row reader).
    expect(json.sheets.Data1!.rows[7]!.c['3']).toBe(0.52);
    expect(json.sheets.Data1!.rows[15]!.c['3']).toBe(0.02);
  });

  it('has a workbook of 50 tiny sheets, read whole by the fast row reader', async () => {
    const file = await tmp.file('tiny.xlsx', tinyWarmUpWorkbook());
    const extraction = await extractWorkbook(file, { mode: 'standard' });
    expect(extraction.warnings).toEqual([]);
    expect(extraction.sheetNames).toHaveLength(50);
    expect(extraction.sheets.every((sheet) => sheet.parsedWith.fast && sheet.rows?.rowCount === 3)).toBe(
      true,
    );
  });

  it('has a quick version of three small sheets, read by the fast row reader, for threads started for a job', async () => {
    const file = await tmp.file('quick.xlsx', quickWarmUpWorkbook());
    const extraction = await extractWorkbook(file, { mode: 'standard' });
    expect(extraction.warnings).toEqual([]);
    expect(extraction.sheetNames).toEqual(['S1', 'S2', 'S3']);
    expect(extraction.sheets.every((sheet) => sheet.parsedWith.fast)).toBe(true);
    await expect(quickWarmUp()).resolves.toBeUndefined();
  });

  it('warm-up stops before its first piece when a job has come, and never throws', async () => {
    let asked = 0;
    await expect(warmUp(() => (asked++, true))).resolves.toBeUndefined();
    expect(asked).toBe(1);
  });
});

describe('a fresh server', () => {
  // Asked for while its thread warms up (jobs/idle-start.ts), or at once after the handshake: the thread
  // is then started for the job and extracts the quick warm-up workbook before it.
  it.each([
    ['while its thread warms up', IDLE_MS + 150],
    ['at once after the handshake', 0],
  ])(
    'gives its first extraction, asked for %s, the same bytes as later ones',
    async (_when, pauseMs) => {
      const body: string[] = [];
      for (let r = 1; r <= 3000; r++) {
        body.push(
          row(
            r,
            `<c r="A${r}"><v>${r}</v></c><c r="B${r}" t="s"><v>${r % 3}</v></c><c r="C${r}"><v>${r / 8}</v></c>` +
              `<c r="D${r}" t="inlineStr"><is><t>行 ${r}</t></is></c><c r="E${r}"><f>C${r}*2</f><v>${r / 4}</v></c>`,
          ),
        );
      }
      const book = `book-${pauseMs}.xlsx`;
      await tmp.file(
        book,
        zipBytes(
          packageParts({
            sheets: [
              { name: 'Data', body: `<sheetData>${body.join('')}</sheetData>` },
              { name: 'Small', body: `<sheetData>${row(1, '<c r="A1"><v>1</v></c>')}</sheetData>` },
            ],
            sharedStrings: ['north', '東京', 'west'],
          }),
        ),
      );
      const server = await spawnStdioClient(process.execPath, [
        path.join(DIST, 'index.js'),
        '--root',
        tmp.dir,
        '--log-level',
        'error',
      ]);
      try {
        const outputs: Buffer[] = [];
        // IDLE_MS + 150: long enough for the server, idle after the handshake, to start its thread: the
        // first call comes while the thread loads its modules or warms up.
        if (pauseMs > 0) await sleep(pauseMs);
        for (const name of ['first', 'second']) {
          const result = await callTool(server.client, 'exstruct_extract', {
            xlsx_path: book,
            out_name: `${name}-${pauseMs}.json`,
          });
          expect(result.isError, result.text).toBe(false);
          outputs.push(await readFile(path.join(tmp.dir, `${name}-${pauseMs}.json`)));
        }
        expect(outputs[0]!.equals(outputs[1]!)).toBe(true);
        const engine = await extractWorkbook(path.join(tmp.dir, book), { mode: 'standard' });
        expect(outputs[0]!.toString('utf8')).toBe(engine.serialize('json'));
      } finally {
        await server.close();
      }
    },
    60_000,
  );
});
