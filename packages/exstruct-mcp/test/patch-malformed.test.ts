// Malformed workbooks get a coded answer from exstruct_patch, never INTERNAL (issue 26 §2): a part that
// is not well-formed XML or nests too deep is CORRUPT_WORKBOOK, a part longer than one JavaScript
// string LIMIT_EXCEEDED, each naming the part.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isToolError } from '@mcp-workbench/core';
import { ZipArchive } from '../src/ooxml/zip-archive.js';
import { parseOps } from '../src/patch/parse-ops.js';
import { runPatch } from '../src/patch/run-patch.js';
import { packageParts, zipBytes } from './extract-helpers.js';
import { FIXTURES, workspace, type Workspace } from './patch-helpers.js';

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace();
});
afterAll(async () => ws.close());

const BODY = '<sheetData><row r="1"><c r="A1"><v>1</v></c></row></sheetData>';
const SET_B2 = [{ op: 'set_value', sheet: 'Data', cell: 'B2', value: 2 }];

async function book(name: string, parts: Record<string, string | Buffer>): Promise<string> {
  const file = path.join(ws.dir, name);
  await writeFile(file, zipBytes(parts));
  return file;
}

describe('exstruct_patch on malformed parts', () => {
  it('relationships whose attributes are not separated by white space: CORRUPT_WORKBOOK naming the part', async () => {
    // As in a workbook of a public test suite: `Id="rId1"Type="…"Target="…"`.
    const parts = packageParts({ sheets: [{ name: 'Data', body: BODY }] });
    const rels = 'xl/_rels/workbook.xml.rels';
    parts[rels] = parts[rels]!.replace(/" (Type|Target)=/g, '"$1=');
    const res = await ws.call('exstruct_patch', {
      xlsx_path: await book('nospace.xlsx', parts),
      ops: SET_B2,
    });
    expect(res.error).toMatchObject({ code: 'CORRUPT_WORKBOOK', details: { part: rels } });
    expect(res.error!.message).toMatch(/not separated by white space/);
  });

  it('elements nested deeper than 512 after the cells: CORRUPT_WORKBOOK naming the sheet', async () => {
    const deep = `<extLst>${'<ext>'.repeat(600)}${'</ext>'.repeat(600)}</extLst>`;
    const parts = packageParts({ sheets: [{ name: 'Data', body: BODY + deep }] });
    const res = await ws.call('exstruct_patch', { xlsx_path: await book('deep.xlsx', parts), ops: SET_B2 });
    expect(res.error).toMatchObject({
      code: 'CORRUPT_WORKBOOK',
      details: { part: 'xl/worksheets/sheet1.xml' },
    });
    expect(res.error!.message).toMatch(/nested more than 512/);
  });

  it('a part longer than one JavaScript string: LIMIT_EXCEEDED naming it, before it is read', async () => {
    const parts = packageParts({ sheets: [{ name: 'Data', body: BODY }] });
    // styles.xml declares 600 MB (over V8's 512 MiB strings); 700 KB of data keep it under the
    // zip caps' 1000:1 ratio. Inflation never gives more than the declared size, so the size decides.
    const zip = zipBytes({ ...parts, 'xl/styles.xml': randomBytes(700_000) });
    declareSize(zip, 'xl/styles.xml', 600_000_000);
    const file = path.join(ws.dir, 'huge-styles.xlsx');
    await writeFile(file, zip);
    const res = await ws.call('exstruct_patch', { xlsx_path: file, ops: SET_B2 });
    expect(res.error).toMatchObject({ code: 'LIMIT_EXCEEDED', details: { part: 'xl/styles.xml' } });
  });
});

describe('a sheet that inflates to other than its declared size', () => {
  // The patch inflates the sheet it edits from the package in memory (up to 32 MiB) or streams it from
  // the file (larger packages): both count its bytes against the size the package declares.
  const SHEET = 'xl/worksheets/sheet1.xml';
  const cases = [
    { where: 'in memory', padding: 0 },
    // Random bytes do not compress: the package is over 32 MiB, so its parts are read from the file.
    { where: 'read from the file', padding: 33 * 1024 * 1024 },
  ];
  for (const { where, padding } of cases) {
    it(`ZIP_BOMB naming the sheet, nothing written (package ${where})`, async () => {
      const parts: Record<string, string | Buffer> = packageParts({ sheets: [{ name: 'Data', body: BODY }] });
      if (padding) parts['xl/media/padding.bin'] = randomBytes(padding);
      const zip = zipBytes(parts);
      const actual = Buffer.byteLength(parts[SHEET]!);
      for (const declared of [actual - 10, actual + 10]) {
        declareSize(zip, SHEET, declared);
        const name = `sized-${padding}-${declared}.xlsx`;
        await writeFile(path.join(ws.dir, name), zip);
        const res = await ws.call('exstruct_patch', { xlsx_path: name, ops: SET_B2 });
        expect(res.error, res.text).toMatchObject({ code: 'ZIP_BOMB' });
        expect(res.error!.message).toContain(SHEET);
        expect(existsSync(path.join(ws.dir, name.replace('.xlsx', '_patched.xlsx')))).toBe(false);
      }
    }, 60_000);
  }
});

describe('mutated parts of a workbook from another producer', () => {
  it('every patch of every mutant succeeds or answers a coded error; CORRUPT_WORKBOOK names the part', async () => {
    const source = path.join(FIXTURES, 'producers', 'openpyxl.xlsx');
    const zip = await ZipArchive.open(source);
    const original = new Map<string, Buffer>();
    for (const { name } of zip.list()) original.set(name, await zip.readBuffer(name));
    zip.close();
    const first = /<sheet [^>]*name="([^"]+)"/.exec(original.get('xl/workbook.xml')!.toString())![1]!;
    const mutations: Record<string, (xml: string) => string> = {
      'attributes run together': (xml) => xml.replace(/" (\w)/g, '"$1'),
      'nested 600 deep': (xml) =>
        xml.replace(/(<\/[^>]+>)\s*$/, `${'<x>'.repeat(600)}${'</x>'.repeat(600)}$1`),
      empty: () => '',
    };
    // One patch that reads what edits read (the sheet's rows, merges, styles) and rewrites what a
    // rename rewrites (workbook, every sheet's formulas, relationships, content types).
    const opSets = [
      [
        { op: 'set_value', sheet: first, cell: 'B2', value: 1 },
        { op: 'merge_cells', sheet: first, range: 'D5:E6' },
        { op: 'set_bold', sheet: first, cell: 'A1' },
        { op: 'add_sheet', sheet: 'New' },
        { op: 'rename_sheet', sheet: first, new_name: 'Renamed' },
      ],
    ].map((ops) => parseOps(ops));
    const outcomes = new Map<string, number>();
    // docProps and the theme are copied as they are whatever they hold.
    const parsed = [...original.keys()].filter(
      (name) => /\.(xml|rels)$/.test(name) && !/docProps|theme/.test(name),
    );
    for (const part of parsed) {
      for (const [mutation, mutate] of Object.entries(mutations)) {
        const mutant = path.join(ws.dir, 'mutant.xlsx');
        const entries = [...original].map(([name, data]): [string, Buffer] => [
          name,
          name === part ? Buffer.from(mutate(data.toString('utf8'))) : data,
        ]);
        await writeFile(mutant, zipBytes(entries));
        for (const ops of opSets) {
          const what = `${part}, ${mutation}, ${ops.map((op) => op.op).join('+')}`;
          try {
            await runPatch({
              input: mutant,
              output: path.join(ws.dir, 'out.xlsx'),
              ops,
              onConflict: 'overwrite',
            });
            outcomes.set('written', (outcomes.get('written') ?? 0) + 1);
          } catch (error) {
            expect(isToolError(error), `${what}: ${String(error)}`).toBe(true);
            const { code, details } = error as { code: string; details?: { part?: string } };
            expect(code, what).not.toBe('INTERNAL');
            if (code === 'CORRUPT_WORKBOOK') expect(details?.part, what).toBe(part);
            outcomes.set(code, (outcomes.get(code) ?? 0) + 1);
          }
        }
      }
    }
    // Most mutants are refused; untouched broken parts (a chart nobody edits) are copied as they were.
    expect(outcomes.get('CORRUPT_WORKBOOK')).toBeGreaterThan(10);
    expect(outcomes.get('written')).toBeGreaterThan(0);
  });
});

/** Sets the uncompressed size an entry declares, in its local header and its central directory entry. */
function declareSize(zip: Buffer, name: string, size: number): void {
  const nameBytes = Buffer.from(name);
  for (let at = 0; at < zip.length - 4; at++) {
    const signature = zip.readUInt32LE(at);
    if (signature === 0x04034b50 && zip.subarray(at + 30, at + 30 + nameBytes.length).equals(nameBytes))
      zip.writeUInt32LE(size, at + 22);
    if (signature === 0x02014b50 && zip.subarray(at + 46, at + 46 + nameBytes.length).equals(nameBytes))
      zip.writeUInt32LE(size, at + 24);
  }
}
