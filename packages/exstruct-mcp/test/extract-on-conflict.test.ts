// exstruct_extract never replaces a file it did not write unless told to (issue 14 item 2, issue 16).
import { chmod, copyFile, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, FIXTURES, tempDir, type Session, type TempDir } from './extract-helpers.js';

let tmp: TempDir;
let session: Session | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
  await tmp.remove();
});

async function setUp(onConflict?: 'overwrite'): Promise<string> {
  tmp = await tempDir();
  session = await connect(tmp.dir, onConflict ? { onConflict } : {});
  const book = path.join(tmp.dir, 'report.xlsx');
  await copyFile(path.join(FIXTURES, 'basic__sample.xlsx'), book);
  return book;
}

describe('exstruct_extract and files it did not write', () => {
  it('keeps an unrelated report.json and writes report_1.json, saying so', async () => {
    const book = await setUp();
    await writeFile(path.join(tmp.dir, 'report.json'), '{"budget": 1}');
    const res = await session!.call<{ out_path: string; warnings: string[] }>('exstruct_extract', {
      xlsx_path: book,
    });
    expect(res.isError, res.text).toBe(false);
    expect(path.basename(res.structured.out_path)).toBe('report_1.json');
    expect(res.structured.warnings.join(' ')).toMatch(
      /report\.json exists and is not an extraction of report\.xlsx.*on_conflict="overwrite"/,
    );
    expect(await readFile(path.join(tmp.dir, 'report.json'), 'utf8')).toBe('{"budget": 1}');
  });

  it('beside an unrelated report.json, a re-run replaces its own report_1.json instead of adding report_2', async () => {
    const book = await setUp();
    await writeFile(path.join(tmp.dir, 'report.json'), '{"budget": 1}');
    await writeFile(path.join(tmp.dir, 'report_2.json'), '{"someone": "else"}');
    const outs: string[] = [];
    for (let run = 0; run < 3; run++) {
      const res = await session!.call<{ out_path: string }>('exstruct_extract', { xlsx_path: book });
      expect(res.isError, res.text).toBe(false);
      outs.push(path.basename(res.structured.out_path));
    }
    expect(outs).toEqual(['report_1.json', 'report_1.json', 'report_1.json']);
    expect(await readFile(path.join(tmp.dir, 'report_2.json'), 'utf8')).toBe('{"someone": "else"}');
    expect(await readFile(path.join(tmp.dir, 'report.json'), 'utf8')).toBe('{"budget": 1}');
  });

  it('with on_conflict="skip", says when the file it kept is not an extraction of the workbook', async () => {
    const book = await setUp();
    await writeFile(path.join(tmp.dir, 'report.json'), '{"budget": 1}');
    const kept = await session!.call<{ out_path: string; warnings: string[] }>('exstruct_extract', {
      xlsx_path: book,
      on_conflict: 'skip',
    });
    expect(kept.isError, kept.text).toBe(false);
    expect(kept.structured.warnings.join(' ')).toMatch(
      /report\.json exists and is not an extraction of report\.xlsx.*not this call's output.*on_conflict="rename"/,
    );
    expect(await readFile(path.join(tmp.dir, 'report.json'), 'utf8')).toBe('{"budget": 1}');
    // Its own earlier output is kept without that word: it is the output, readable as such.
    await session!.call('exstruct_extract', { xlsx_path: book, out_name: 'own.json' });
    const own = await session!.call<{ warnings: string[] }>('exstruct_extract', {
      xlsx_path: book,
      out_name: 'own.json',
      on_conflict: 'skip',
    });
    expect(own.structured.warnings.join(' ')).toContain('skipped writing (on_conflict=skip): own.json');
  });

  it('replaces its own earlier output of the same workbook (re-running extract updates it)', async () => {
    const book = await setUp();
    const first = await session!.call<{ out_path: string }>('exstruct_extract', { xlsx_path: book });
    for (const format of ['json', 'toon', 'yaml']) {
      const again = await session!.call<{ out_path: string }>('exstruct_extract', {
        xlsx_path: book,
        format,
      });
      const second = await session!.call<{ out_path: string }>('exstruct_extract', {
        xlsx_path: book,
        format,
        options: { pretty: true },
      });
      expect(second.structured.out_path).toBe(again.structured.out_path);
    }
    expect(path.basename(first.structured.out_path)).toBe('report.json');
  });

  it('writes with the default mode, never an executable bit taken from a replaced file', async () => {
    const book = await setUp();
    const script = path.join(tmp.dir, 'build.sh');
    await writeFile(script, '#!/bin/sh\necho hi\n');
    await chmod(script, 0o755);
    const res = await session!.call<{ out_path: string }>('exstruct_extract', {
      xlsx_path: book,
      out_name: 'build.sh',
      on_conflict: 'overwrite',
    });
    expect(res.isError, res.text).toBe(false);
    expect((await stat(script)).mode & 0o111).toBe(0);
  });

  it('never writes over its input', async () => {
    const book = await setUp('overwrite');
    const res = await session!.call('exstruct_extract', {
      xlsx_path: book,
      out_name: 'report.xlsx',
      on_conflict: 'overwrite',
    });
    expect(res.error?.code).toBe('INVALID_ARGUMENT');
    expect(res.error?.message).toMatch(/replace the workbook itself/);
    expect((await readFile(book)).subarray(0, 2).toString()).toBe('PK');
  });

  it('extraction and sheet images are annotated destructive only when the server overwrites by default', async () => {
    await setUp();
    const writers = ['exstruct_extract', 'exstruct_capture_sheet_images'];
    const destructive = async () =>
      (await session!.client.client.listTools()).tools
        .filter((t) => writers.includes(t.name))
        .map((t) => [t.name, t.annotations?.destructiveHint]);
    expect(await destructive()).toEqual(writers.map((name) => [name, false]));
    await session!.close();
    session = await connect(tmp.dir, { onConflict: 'overwrite' });
    expect(await destructive()).toEqual(writers.map((name) => [name, true]));
  });
});
