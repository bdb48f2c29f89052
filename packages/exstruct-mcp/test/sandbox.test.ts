// A hostile tree and hostile workbooks against the file access and answer sizes (issue 14): reads and
// writes go through the path policy's race-free opens, and no answer can outgrow the transport.
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, readdir, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startLinkFlipper } from '@mcp-workbench/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ANSWER_BYTES, fitEditAnswer } from '../src/tools/answer-size.js';
import {
  connect,
  FIXTURES,
  packageParts,
  row,
  tempDir,
  zipBytes,
  type Session,
  type TempDir,
} from './extract-helpers.js';

const posix = process.platform !== 'win32';
/** A, B, …, Z, AA, AB, … */
const column = (i: number) =>
  (i < 26 ? '' : String.fromCharCode(64 + Math.floor(i / 26))) + String.fromCharCode(65 + (i % 26));

describe('the check-then-open race', () => {
  let tmp: TempDir;
  let session: Session;
  beforeAll(async () => {
    tmp = await tempDir('exstruct-race-');
  });
  afterAll(async () => {
    await session?.close();
    await tmp.remove();
  });

  it.skipIf(!posix)(
    'reads no outside content and writes nothing outside while a folder flips to a symlink',
    async () => {
      const ws = await realpath(tmp.dir);
      const root = path.join(ws, 'root');
      const outside = path.join(ws, 'outside');
      await mkdir(path.join(root, 'flip'), { recursive: true });
      await mkdir(outside);
      await copyFile(path.join(FIXTURES, 'basic__sample.xlsx'), path.join(root, 'flip', 'book.xlsx'));
      session = await connect(root);
      const made = await session.call<{ out_path: string }>('exstruct_extract', {
        xlsx_path: 'flip/book.xlsx',
        out_name: 'out.json',
      });
      expect(made.isError, made.text).toBe(false);
      const insideSheets = (made.structured as unknown as { workbook_meta: { sheet_names: string[] } })
        .workbook_meta.sheet_names;
      // The outside folder holds an "output" of the same name with content that must never come back.
      await writeFile(
        path.join(outside, 'out.json'),
        JSON.stringify({
          book_name: 'OUTSIDE',
          sheets: { OUTSIDE: { rows: [{ r: 1, c: { 0: 'OUTSIDE' } }] } },
        }),
      );
      await copyFile(path.join(FIXTURES, 'formula__formula.xlsx'), path.join(outside, 'book.xlsx'));
      const before = await readdir(outside);

      const flipper = await startLinkFlipper(path.join(root, 'flip'), outside);
      const seen = { ok: 0, leaked: 0, codes: new Set<string>() };
      try {
        const deadline = Date.now() + 2000;
        for (let i = 0; Date.now() < deadline; i++) {
          const calls = await Promise.all([
            session.call('exstruct_read_json_chunk', { out_path: 'flip/out.json', max_bytes: 200_000 }),
            session.call('exstruct_validate_input', { xlsx_path: 'flip/book.xlsx' }),
            session.call('exstruct_extract', {
              xlsx_path: 'flip/book.xlsx',
              out_name: `w${i}.json`,
              on_conflict: 'overwrite',
            }),
          ]);
          const [chunk, validated, extracted] = calls as [
            Awaited<ReturnType<Session['call']>> & { structured: Record<string, unknown> },
            Awaited<ReturnType<Session['call']>> & { structured: Record<string, unknown> },
            Awaited<ReturnType<Session['call']>> & { structured: Record<string, unknown> },
          ];
          // What the inside files give; anything else came from the outside folder.
          const answers = [
            [chunk, () => chunk.text.includes('"book_name":"OUTSIDE"')],
            [
              validated,
              () =>
                JSON.stringify(validated.structured.sheet_names ?? insideSheets) !==
                JSON.stringify(insideSheets),
            ],
            [
              extracted,
              () =>
                JSON.stringify(
                  (extracted.structured.workbook_meta as { sheet_names: string[] }).sheet_names,
                ) !== JSON.stringify(insideSheets),
            ],
          ] as const;
          for (const [call, leaked] of answers) {
            if (call.isError) seen.codes.add(call.error!.code);
            else if (leaked()) seen.leaked++;
            else seen.ok++;
          }
        }
      } finally {
        await flipper.stop();
      }
      expect(flipper.flips()).toBeGreaterThan(50);
      expect(seen.leaked).toBe(0);
      expect(seen.ok).toBeGreaterThan(0);
      expect(
        [...seen.codes].filter((c) => !['PATH_OUTSIDE_ROOT', 'NOT_FOUND', 'CONFLICT'].includes(c)),
      ).toEqual([]);
      expect((await readdir(outside)).sort()).toEqual(before.sort());
      const inside = await readdir(root, { recursive: true });
      expect(inside.filter((name) => name.endsWith('.tmp'))).toEqual([]);
    },
  );
});

describe('special files', () => {
  it.skipIf(!posix)('refuses a named pipe as a workbook or an output at once', async () => {
    const tmp = await tempDir('exstruct-fifo-');
    execFileSync('mkfifo', [path.join(tmp.dir, 'pipe.xlsx')]);
    execFileSync('mkfifo', [path.join(tmp.dir, 'pipe.json')]);
    const session = await connect(tmp.dir);
    try {
      const started = Date.now();
      for (const [tool, args] of [
        ['exstruct_extract', { xlsx_path: 'pipe.xlsx' }],
        ['exstruct_validate_input', { xlsx_path: 'pipe.xlsx' }],
        [
          'exstruct_patch',
          { xlsx_path: 'pipe.xlsx', ops: [{ op: 'set_value', sheet: 'S', cell: 'A1', value: 1 }] },
        ],
        ['exstruct_read_json_chunk', { out_path: 'pipe.json' }],
        ['exstruct_read_range', { out_path: 'pipe.json', range: 'A1' }],
      ] as const) {
        const answer = await session.call(tool, args);
        expect(answer.error?.code, tool).toBe('INVALID_ARGUMENT');
      }
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await session.close();
      await tmp.remove();
    }
  });
});

describe('answer size', () => {
  let tmp: TempDir;
  let session: Session;
  beforeAll(async () => {
    tmp = await tempDir('exstruct-size-');
    // One row of 40 cells of 60,000 characters each (Excel allows 32,767 per cell; other writers more).
    const long = 'x'.repeat(60_000);
    const cells = Array.from(
      { length: 40 },
      (_, i) => `<c r="${column(i)}1" t="inlineStr"><is><t>${long}</t></is></c>`,
    ).join('');
    await writeFile(
      path.join(tmp.dir, 'wide.xlsx'),
      zipBytes(packageParts({ sheets: [{ name: 'Wide', body: `<sheetData>${row(1, cells)}</sheetData>` }] })),
    );
    session = await connect(tmp.dir);
  });
  afterAll(async () => {
    await session.close();
    await tmp.remove();
  });

  it('refuses max_bytes above 1,000,000, and a single row larger than an answer carries', async () => {
    const tooBig = await session.call('exstruct_read_json_chunk', {
      out_path: 'x.json',
      max_bytes: 5_500_000,
    });
    expect(tooBig.error?.code).toBe('INVALID_ARGUMENT');
    const made = await session.call<{ out_path: string }>('exstruct_extract', { xlsx_path: 'wide.xlsx' });
    expect(made.isError, made.text).toBe(false);
    const chunk = await session.call('exstruct_read_json_chunk', { out_path: 'wide.json', sheet: 'Wide' });
    expect(chunk.error).toMatchObject({
      code: 'LIMIT_EXCEEDED',
      message: expect.stringContaining('This chunk'),
    });
    const range = await session.call('exstruct_read_range', {
      out_path: 'wide.json',
      sheet: 'Wide',
      range: 'A1:AN1',
    });
    expect(range.error?.code).toBe('LIMIT_EXCEEDED');
    const narrow = await session.call('exstruct_read_range', {
      out_path: 'wide.json',
      sheet: 'Wide',
      range: 'A1:C1',
    });
    expect(narrow.isError).toBe(false);
  });

  it('writes a patch too large to describe, then cuts its answer to fit and says so', async () => {
    const long = 'y'.repeat(30_000);
    const made = await session.call('exstruct_make', {
      out_path: 'long.xlsx',
      sheet: 'Wide',
      ops: [
        {
          op: 'set_range_values',
          sheet: 'Wide',
          range: 'A1:AN1',
          values: [Array.from({ length: 40 }, () => long)],
        },
      ],
    });
    expect(made.isError, made.text.slice(0, 300)).toBe(false);
    const ops = Array.from({ length: 40 }, (_, i) => ({
      op: 'set_value',
      sheet: 'Wide',
      cell: `${column(i)}1`,
      value: i,
    }));
    const patched = await session.call<{ inverse_ops: unknown[]; patch_diff: unknown[]; warnings: string[] }>(
      'exstruct_patch',
      { xlsx_path: 'long.xlsx', ops, return_inverse_ops: true },
    );
    expect(patched.isError, patched.text.slice(0, 300)).toBe(false);
    expect(patched.text.length).toBeLessThan(MAX_ANSWER_BYTES + 10_000);
    expect(patched.structured.inverse_ops).toEqual([]);
    expect(patched.structured.warnings.join(' ')).toContain('inverse_ops (40 ops) are too large');
    const files = await readdir(tmp.dir);
    expect(files).toContain('long_patched.xlsx');
  });

  it('keeps the first diff entries of a huge patch and counts the rest', () => {
    const diff = Array.from({ length: 150_000 }, (_, i) => ({
      op_index: i,
      op: 'set_value',
      sheet: 'Sheet1',
      cell: `A${i + 1}`,
      before: null,
      after: { kind: 'value', value: i },
      status: 'applied',
    }));
    const fitted = fitEditAnswer({ patch_diff: diff, inverse_ops: [], formula_issues: [], warnings: [] });
    expect(JSON.stringify(fitted).length).toBeLessThan(MAX_ANSWER_BYTES);
    expect(fitted.patch_diff.length).toBeGreaterThan(1000);
    expect(fitted.warnings[0]).toMatch(/^patch_diff lists the first \d+ of 150000 changes/);
  });
});
