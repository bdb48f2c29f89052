// Shared set-up for the editing tests: a temp root with writable fixture copies, a server wired to a
// real MCP client, and readers that look inside the written packages.
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { deferOpenpyxlCheck, strictXmlProblems } from './independent-reader.js';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, expect } from 'vitest';
import { PathPolicy, silentLogger } from '@mcp-workbench/core';
import { callTool, connectInMemory, type TestClient } from '@mcp-workbench/core/testing';
import { ZipArchive } from '../src/ooxml/zip-archive.js';
import { zipBytes } from './extract-helpers.js';
import type { OnConflict } from '../src/output/on-conflict.js';
import { createServer } from '../src/server.js';
import { loadEditEngine } from '../src/tools/load-edit-engine.js';

export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** What `Workspace.edited` does to a part: a function of its text, a new text, or `null` to delete it. */
export type PartEdit = string | null | ((xml: string) => string);

/** Adds a relationship to a `.rels` part's text. */
export const addRelationship = (type: string, target: string, id: string) => (xml: string) =>
  xml.replace(
    '</Relationships>',
    `<Relationship Id="${id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${type}" Target="${target}"/></Relationships>`,
  );

export interface Workspace {
  dir: string;
  /** Copies a fixture into the workspace (writable) and returns its path. */
  fixture(name: string, as?: string): Promise<string>;
  /** A fixture with parts edited by hand, written as a new workbook in the workspace: its path. */
  edited(fixture: string, edits: Record<string, PartEdit>): Promise<string>;
  client: TestClient;
  call<T = Record<string, unknown>>(
    tool: string,
    args: Record<string, unknown>,
  ): ReturnType<typeof callTool<T>>;
  close(): Promise<void>;
}

/** One workspace for a test file's tests: made before them, closed after them. */
export function useWorkspace(): Workspace {
  let ws: Workspace | undefined;
  beforeAll(async () => {
    ws = await workspace();
  });
  afterAll(async () => {
    await ws?.close();
  });
  const opened = () => ws ?? expect.fail('the workspace is made in beforeAll');
  return {
    get dir() {
      return opened().dir;
    },
    get client() {
      return opened().client;
    },
    fixture: (name, as) => opened().fixture(name, as),
    edited: (fixture, edits) => opened().edited(fixture, edits),
    call: (tool, args) => opened().call(tool, args),
    close: () => opened().close(),
  };
}

export async function workspace(options: { onConflict?: OnConflict } = {}): Promise<Workspace> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'exstruct-edit-'));
  const paths = await PathPolicy.create({ roots: [dir] });
  const server = options.onConflict
    ? createServer({ paths, logger: silentLogger, onConflict: options.onConflict })
    : createServer({ paths, logger: silentLogger });
  const client = await connectInMemory(server);
  // The edit tools load their engine on first use. Run from src, that is vitest transforming ~100
  // modules (~1 s, three times that on a loaded CI machine): done here, so that no test times it as
  // part of a call (the built server loads one bundle in ~55 ms).
  await loadEditEngine();
  const written = new Set<string>();
  let editedCount = 0;
  const fixture = async (name: string, as = name) => {
    const target = path.join(dir, as);
    await copyFile(path.join(FIXTURES, name), target);
    await chmod(target, 0o644);
    return target;
  };
  return {
    dir,
    fixture,
    async edited(name, edits) {
      const parts = await readParts(await fixture(name, `src-${++editedCount}-${name}`));
      for (const [part, edit] of Object.entries(edits)) {
        if (edit === null) parts.delete(part);
        else
          parts.set(
            part,
            Buffer.from(typeof edit === 'string' ? edit : edit(parts.get(part)?.toString('utf8') ?? '')),
          );
      }
      const file = path.join(dir, `edited-${editedCount}.xlsx`);
      await writeFile(file, zipBytes(Object.fromEntries(parts)));
      return file;
    },
    client,
    async call<T>(tool: string, args: Record<string, unknown>) {
      const res = await callTool<T>(client.client, tool, args);
      const out = (res.structured as { out_path?: unknown } | undefined)?.out_path;
      if (!res.isError && typeof out === 'string' && /^exstruct_(patch|make)$/.test(tool)) written.add(out);
      return res;
    },
    async close() {
      await client.close();
      const cleanup = () => rm(dir, { recursive: true, force: true });
      // Every workbook the tests wrote must open in readers that are not ours: the strict XML parse
      // now, openpyxl for all of a test file's workbooks at once when the file ends.
      const files = [...written].filter((f) => existsSync(f));
      const problems: string[] = [];
      try {
        for (const file of files)
          for (const p of await strictXmlProblems(file)) problems.push(`${file}: ${p}`);
      } catch (error) {
        await cleanup();
        throw error;
      }
      if (problems.length) {
        await cleanup();
        throw new Error(`Independent readers refused written workbooks:\n${problems.join('\n')}`);
      }
      deferOpenpyxlCheck({ test: expect.getState().currentTestName ?? dir, files, cleanup });
    },
  };
}

/**
 * The PatchErrorDetail of a failed patch: the answer is an error result (PATCH_FAILED) whose details
 * carry it, with nothing written.
 */
export function patchError(res: {
  isError?: boolean;
  error?: { code: string; details?: Record<string, unknown> } | undefined;
}): { op_index: number; op: string; sheet: string; cell: string | null; message: string } | undefined {
  if (!res.isError || res.error?.code !== 'PATCH_FAILED') return undefined;
  return res.error.details?.error as ReturnType<typeof patchError>;
}

/** Every part of a package, decompressed. */
export async function readParts(file: string): Promise<Map<string, Buffer>> {
  const zip = await ZipArchive.open(file);
  try {
    const parts = new Map<string, Buffer>();
    for (const entry of zip.list()) parts.set(entry.name, await zip.readBuffer(entry.name));
    return parts;
  } finally {
    zip.close();
  }
}

export async function readPart(file: string, part: string): Promise<string> {
  const zip = await ZipArchive.open(file);
  try {
    return await zip.readText(part);
  } finally {
    zip.close();
  }
}

/** Reads a workbook with exceljs, an independent implementation. */
export async function readWorkbook(file: string): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(file);
  return workbook;
}

/** A comparable picture of a workbook: sheets, cell values/formulas/styles, merges, sizes. */
export async function snapshot(file: string): Promise<unknown> {
  const workbook = await readWorkbook(file);
  return workbook.worksheets.map((ws) => {
    const cells: Record<string, unknown> = {};
    const heights: Record<number, number> = {};
    for (let r = 1; r <= Math.max(ws.rowCount, 25); r++) {
      const row = ws.getRow(r);
      if (row.height) heights[r] = row.height;
      for (let c = 1; c <= Math.max(ws.columnCount, 12); c++) {
        const cell = row.getCell(c);
        const formula = cell.type === ExcelJS.ValueType.Formula ? cell.formula : undefined;
        const value = formula === undefined ? (cell.value ?? null) : null;
        const style = JSON.stringify(cell.style ?? {});
        if (value === null && formula === undefined && style === '{}') continue;
        cells[cell.address] = { value, formula: formula ?? null, style };
      }
    }
    const widths: Record<number, number> = {};
    for (let c = 1; c <= Math.max(ws.columnCount, 12); c++) {
      const w = ws.getColumn(c).width;
      if (w) widths[c] = w;
    }
    return {
      name: ws.name,
      state: ws.state,
      cells,
      merges: [...(ws.model.merges ?? [])].sort(),
      heights,
      widths,
    };
  });
}

const PNG_1PX = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * A workbook with the things an edit must not lose: cross-sheet formulas with cached results, a
 * defined name, a print area, data validation, conditional formatting, an image, merged cells.
 * Written by exceljs (an independent writer).
 */
export async function buildRichWorkbook(file: string): Promise<void> {
  const wb = new ExcelJS.Workbook();
  const data = wb.addWorksheet('Data');
  data.getCell('A1').value = 'Item';
  data.getCell('B1').value = 'Amount';
  ['apple', 'pear', 'plum'].forEach((item, i) => {
    data.getCell(`A${i + 2}`).value = item;
    data.getCell(`B${i + 2}`).value = (i + 1) * 10;
  });
  data.getCell('B5').value = { formula: 'SUM(B2:B4)', result: 60 };
  data.getCell('B6').value = { formula: 'B5*2', result: 120 };
  sheetExtras(data).dataValidations.add!('C2:C4', {
    type: 'list',
    allowBlank: true,
    formulae: ['Lists!$A$1:$A$3'],
  });
  data.addConditionalFormatting({
    ref: 'B2:B4',
    rules: [
      {
        type: 'cellIs',
        operator: 'greaterThan',
        priority: 1,
        formulae: ['15'],
        style: { fill: { type: 'pattern', pattern: 'solid', bgColor: { argb: 'FFFFC7CE' } } },
      },
    ],
  });
  data.getColumn(1).width = 14;
  const report = wb.addWorksheet('Report');
  report.getCell('A1').value = 'Report';
  report.mergeCells('A1:C1');
  report.getCell('A2').value = { formula: 'SUM(Data!B2:B4)', result: 60 };
  report.getCell('A3').value = { formula: "'Data'!B6+1", result: 121 };
  report.pageSetup.printArea = 'A1:C3';
  report.addImage(wb.addImage({ buffer: PNG_1PX as unknown as ExcelJS.Buffer, extension: 'png' }), 'E2:F4');
  const lists = wb.addWorksheet('Lists');
  ['x', 'y', 'z'].forEach((v, i) => (lists.getCell(`A${i + 1}`).value = v));
  wb.definedNames.add('Data!$B$2:$B$4', 'Amounts');
  await wb.xlsx.writeFile(file);
}

/**
 * Turns a workbook into a macro-enabled one with a VBA project and a (minimal) pivot cache and pivot
 * table, parts that only have to survive an edit byte for byte.
 */
export async function addMacroAndPivot(src: string, dst: string): Promise<{ vba: Buffer }> {
  const { ZipWriter } = await import('../src/patch/zip-writer.js');
  const { open } = await import('node:fs/promises');
  const parts = await readParts(src);
  const vba = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 31) % 256));
  const types = parts
    .get('[Content_Types].xml')!
    .toString('utf8')
    .replace(
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml',
      'application/vnd.ms-excel.sheet.macroEnabled.main+xml',
    )
    .replace(
      '</Types>',
      '<Default Extension="bin" ContentType="application/vnd.ms-office.vbaProject"/>' +
        '<Override PartName="/xl/pivotCache/pivotCacheDefinition1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.pivotCacheDefinition+xml"/>' +
        '<Override PartName="/xl/pivotTables/pivotTable1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.pivotTable+xml"/></Types>',
    );
  const rels = parts
    .get('xl/_rels/workbook.xml.rels')!
    .toString('utf8')
    .replace(
      '</Relationships>',
      '<Relationship Id="rIdVba" Type="http://schemas.microsoft.com/office/2006/relationships/vbaProject" Target="vbaProject.bin"/>' +
        '<Relationship Id="rIdPc" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/pivotCacheDefinition" Target="pivotCache/pivotCacheDefinition1.xml"/></Relationships>',
    );
  const pivotCache =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<pivotCacheDefinition xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" refreshOnLoad="1" recordCount="0">' +
    '<cacheSource type="worksheet"><worksheetSource ref="A1:B4" sheet="Data"/></cacheSource><cacheFields count="2"><cacheField name="Item" numFmtId="0"><sharedItems/></cacheField><cacheField name="Amount" numFmtId="0"><sharedItems/></cacheField></cacheFields></pivotCacheDefinition>';
  const pivotTable =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<pivotTableDefinition xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" name="Pivot1" cacheId="1" dataCaption="Values">' +
    '<location ref="H1:I5" firstHeaderRow="1" firstDataRow="1" firstDataCol="1"/><pivotFields count="2"><pivotField showAll="0"/><pivotField dataField="1" showAll="0"/></pivotFields></pivotTableDefinition>';
  const handle = await open(dst, 'w');
  try {
    const zip = new ZipWriter(handle);
    for (const [name, body] of parts) {
      if (name === '[Content_Types].xml') await zip.addDeflated(name, types);
      else if (name === 'xl/_rels/workbook.xml.rels') await zip.addDeflated(name, rels);
      else if (name === 'xl/workbook.xml')
        await zip.addDeflated(
          name,
          body
            .toString('utf8')
            .replace(
              /<\/workbook>$/,
              '<pivotCaches><pivotCache cacheId="1" r:id="rIdPc"/></pivotCaches></workbook>',
            ),
        );
      else await zip.addDeflated(name, body);
    }
    await zip.addDeflated('xl/vbaProject.bin', vba);
    await zip.addDeflated('xl/pivotCache/pivotCacheDefinition1.xml', pivotCache);
    await zip.addDeflated('xl/pivotTables/pivotTable1.xml', pivotTable);
    await zip.addDeflated(
      'xl/pivotTables/_rels/pivotTable1.xml.rels',
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/pivotCacheDefinition" Target="../pivotCache/pivotCacheDefinition1.xml"/></Relationships>',
    );
    await zip.finish();
  } finally {
    await handle.close();
  }
  return { vba };
}

/** Parts of exceljs worksheets its type definitions leave out. */
export function sheetExtras(ws: ExcelJS.Worksheet): {
  dataValidations: {
    model: Record<string, unknown>;
    add?: (ref: string, rule: Record<string, unknown>) => void;
  };
  conditionalFormattings: unknown[];
} {
  return ws as unknown as ReturnType<typeof sheetExtras>;
}

/** The data validation rule exceljs read for a range (keyed by range or by its first cell). */
export function validationOf(ws: ExcelJS.Worksheet, ref: string): unknown {
  const model = sheetExtras(ws).dataValidations.model;
  return model[ref] ?? model[ref.split(':')[0]!];
}
