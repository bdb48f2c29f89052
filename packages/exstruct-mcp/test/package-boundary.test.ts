// A patch writes parts only inside the package, and one part of a kind the workbook keeps one of, whatever
// its relationships say. The inputs are Excel's own fixture with its relationships edited by hand: one
// that climbs out of the package (`../../evil.xml` from `xl/`), one to a part that is missing. The entry
// names are read back with Python's zipfile, not with our reader.
import { open, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, type TestContext } from 'vitest';
import { ZipWriter } from '../src/patch/zip-writer.js';
import { parseTree, walk } from '../src/patch/xml.js';
import { zipEntryNames } from './independent-reader.js';
import { addRelationship, readParts, workspace, type Workspace } from './patch-helpers.js';

const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const METADATA_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheetMetadata+xml';

let ws: Workspace;
beforeEach(async () => {
  ws = await workspace();
});
afterEach(async () => {
  await ws.close();
});

/** The entry names of a zip, as Python's zipfile lists them (the test skips without Python). */
async function entryNames(ctx: TestContext, file: string): Promise<string[]> {
  const names = await zipEntryNames(file);
  if (names === undefined) ctx.skip(); // .ci/run installs python3-openpyxl and requires it
  return names ?? [];
}

/** The workbook's relationships of a kind: their targets. */
function targetsOf(relsXml: string, type: string): string[] {
  return [...walk(parseTree(relsXml))]
    .filter((n) => n.local === 'Relationship' && n.attrs.get('Type') === `${REL}/${type}`)
    .map((n) => n.attrs.get('Target')!);
}

async function patch(file: string, ops: Record<string, unknown>[]) {
  const res = await ws.call<{ out_path: string }>('exstruct_patch', { xlsx_path: file, ops });
  expect(res.isError, res.text).toBeFalsy();
  return res.structured.out_path;
}

describe('exstruct_patch keeps its parts inside the package', () => {
  it('a metadata relationship that climbs out of the package: the spilling formula gets a new part inside it', async (ctx) => {
    const file = await ws.edited('basic__sample.xlsx', {
      'xl/_rels/workbook.xml.rels': addRelationship('sheetMetadata', '../../evil.xml', 'rId99'),
    });
    const out = await patch(file, [
      { op: 'set_formula', sheet: 'Sheet1', cell: 'H1', formula: '=UNIQUE(C4:C9)' },
    ]);

    const names = await entryNames(ctx, out);
    expect(names.filter((n) => n.startsWith('/') || n.split('/').includes('..'))).toEqual([]);
    expect(names).toContain('xl/metadata.xml');
    const parts = await readParts(out);
    expect(targetsOf(parts.get('xl/_rels/workbook.xml.rels')!.toString('utf8'), 'sheetMetadata')).toEqual([
      'metadata.xml',
    ]);
    const types = parts.get('[Content_Types].xml')!.toString('utf8');
    expect(types).toContain(`<Override PartName="/xl/metadata.xml" ContentType="${METADATA_TYPE}"/>`);
    expect(parts.get('xl/worksheets/sheet1.xml')!.toString('utf8')).toContain(
      '<c r="H1" cm="1"><f t="array" ref="H1">_xlfn.UNIQUE(C4:C9)</f></c>',
    );
  });

  it('a styles relationship to a missing part, beside a styles.xml no relationship names: one styles part, no entry twice', async (ctx) => {
    const file = await ws.edited('basic__sample.xlsx', {
      'xl/_rels/workbook.xml.rels': (xml) => xml.replace('Target="styles.xml"', 'Target="styles-gone.xml"'),
    });
    const out = await patch(file, [{ op: 'set_bold', sheet: 'Sheet1', range: 'B3' }]);

    const names = await entryNames(ctx, out);
    expect(names.length).toBe(new Set(names.map((n) => n.toLowerCase())).size);
    const parts = await readParts(out);
    const styles = targetsOf(parts.get('xl/_rels/workbook.xml.rels')!.toString('utf8'), 'styles');
    expect(styles).toHaveLength(1);
    expect(names).toContain(`xl/${styles[0]}`);
    expect(parts.get(`xl/${styles[0]}`)!.toString('utf8')).toMatch(/<b\/>/);
  });
});

describe('a package that holds an entry outside itself', () => {
  it('is refused by exstruct_patch, naming the entry, and nothing is written', async () => {
    const file = await ws.edited('basic__sample.xlsx', { '../evil.xml': '<x/>' });
    const before = await readdir(ws.dir);
    const res = await ws.call('exstruct_patch', {
      xlsx_path: file,
      ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'A1', value: 1 }],
    });
    expect(res.isError).toBe(true);
    expect(res.error?.message).toContain('../evil.xml');
    expect(await readdir(ws.dir)).toEqual(before);
  });
});

describe('ZipWriter', () => {
  it('refuses an entry name outside the package (absolute, .., backslash, drive) with CORRUPT_WORKBOOK', async () => {
    const handle = await open(path.join(os.tmpdir(), `exstruct-zip-names-${process.pid}.zip`), 'w');
    try {
      const zip = new ZipWriter(handle);
      for (const name of [
        '../evil.xml',
        'xl/../../evil.xml',
        '/etc/evil.xml',
        'xl\\evil.xml',
        'C:/evil.xml',
        '',
      ])
        await expect(zip.addDeflated(name, '<x/>'), name).rejects.toMatchObject({
          code: 'CORRUPT_WORKBOOK',
          details: { part: name },
        });
      await expect(zip.addDeflated('xl/worksheets/sheet1.xml', '<x/>')).resolves.toBeUndefined();
    } finally {
      await handle.close();
    }
  });
});
