// Sheet names that are also names of Object.prototype's members ("__proto__", "constructor") are plain
// sheet names to Excel. Every output format keeps them as sheets, and the readers find them again.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { decodeToonText } from '@mcp-workbench/core/testing';
import { fromToonLayout } from '../src/output/toon-layout.js';
import { connect, row, tempDir, type Session, type TempDir } from './extract-helpers.js';

const NAMES = ['__proto__', 'constructor', 'toString'];

let tmp: TempDir;
let session: Session;

beforeAll(async () => {
  tmp = await tempDir('exstruct-sheet-names-');
  await tmp.package('names.xlsx', {
    sheets: NAMES.map((name, i) => ({
      name,
      body: `<sheetData>${row(1, `<c r="A1" t="inlineStr"><is><t>${name}</t></is></c><c r="B1"><v>${i + 1}</v></c>`)}</sheetData>`,
    })),
  });
  session = await connect(tmp.dir, { onConflict: 'overwrite' });
});
afterAll(async () => {
  await session.close();
  await tmp.remove();
});

async function extract(format: string, options: Record<string, unknown> = {}): Promise<string> {
  const result = await session.call<{ out_path: string }>('exstruct_extract', {
    xlsx_path: 'names.xlsx',
    out_dir: `out-${format}`,
    format,
    options,
  });
  expect(result.isError, result.text).toBe(false);
  return readFile(result.structured.out_path, 'utf8');
}

function expectEverySheet(workbook: { sheets: Record<string, { rows: { c: Record<string, unknown> }[] }> }) {
  expect(Object.keys(workbook.sheets)).toEqual(NAMES);
  NAMES.forEach((name, i) => {
    expect(Object.hasOwn(workbook.sheets, name), name).toBe(true);
    expect(Object.values(workbook.sheets[name]!.rows[0]!.c)).toEqual([name, i + 1]);
  });
}

/** The answer's text block: JSON, or TOON when the chunk comes from a TOON output. */
function decodeAnswer(text: string): unknown {
  return text.startsWith('{') ? JSON.parse(text) : decodeToonText(text);
}

describe('sheets named like Object.prototype members', () => {
  it('are kept by JSON, YAML and TOON output, with numeric and letter column keys', async () => {
    expectEverySheet(JSON.parse(await extract('json')));
    expectEverySheet(parseYaml(await extract('yaml')));
    expectEverySheet(fromToonLayout(decodeToonText(await extract('toon'))) as never);
    expectEverySheet(JSON.parse(await extract('json', { alpha_col: true })));
    expectEverySheet(parseYaml(await extract('yaml', { alpha_col: true })));
  });

  it('are found by exstruct_read_json_chunk in a YAML and a TOON output', async () => {
    for (const format of ['yaml', 'toon']) {
      await extract(format);
      const result = await session.call('exstruct_read_json_chunk', {
        out_path: `out-${format}/names.${format}`,
        sheet: '__proto__',
        max_bytes: 100_000,
      });
      expect(result.isError, result.text).toBe(false);
      const one = decodeAnswer(result.text) as { chunk: { sheet_name: string; sheet: object } };
      expect(one.chunk.sheet_name).toBe('__proto__');
      // The sheet's own cell (rows in the JSON form, a table in the TOON form), not another sheet's.
      expect(JSON.stringify(one.chunk.sheet)).toContain('"__proto__"');
      expect(JSON.stringify(one.chunk.sheet)).not.toContain('constructor');
      const whole = await session.call('exstruct_read_json_chunk', {
        out_path: `out-${format}/names.${format}`,
        max_bytes: 100_000,
      });
      expect(whole.isError, whole.text).toBe(false);
      const all = decodeAnswer(whole.text) as { chunk: { sheets: object } };
      expect(Object.keys(all.chunk.sheets), format).toEqual(NAMES);
    }
  });
});
