// Shared set-up for the editing tests: a temp root with writable fixture copies, a server wired to a
// real MCP client, and readers that look inside the written packages.
import { chmod, copyFile, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ExcelJS from 'exceljs';
import { PathPolicy } from '@mcp-workbench/core';
import { callTool, connectInMemory, type TestClient } from '@mcp-workbench/core/testing';
import { ZipArchive } from '../src/ooxml/zip-archive.js';
import type { OnConflict } from '../src/output/on-conflict.js';
import { createServer } from '../src/server.js';

export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

export interface Workspace {
  dir: string;
  /** Copies a fixture into the workspace (writable) and returns its path. */
  fixture(name: string, as?: string): Promise<string>;
  client: TestClient;
  call<T = Record<string, unknown>>(tool: string, args: Record<string, unknown>): ReturnType<typeof callTool<T>>;
  close(): Promise<void>;
}

export async function workspace(options: { onConflict?: OnConflict } = {}): Promise<Workspace> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'exstruct-edit-'));
  const paths = await PathPolicy.create({ roots: [dir] });
  const client = await connectInMemory(createServer({ paths, ...(options.onConflict ? { onConflict: options.onConflict } : {}) }));
  return {
    dir,
    async fixture(name, as = name) {
      const target = path.join(dir, as);
      await copyFile(path.join(FIXTURES, name), target);
      await chmod(target, 0o644);
      return target;
    },
    client,
    call: (tool, args) => callTool(client.client, tool, args),
    async close() {
      await client.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
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
    ws.eachRow({ includeEmpty: false }, (row, r) => {
      row.eachCell({ includeEmpty: false }, (cell) => {
        const value = cell.value as unknown;
        const formula = value && typeof value === 'object' && 'formula' in (value as object) ? (value as { formula: string }).formula : undefined;
        const plain = formula === undefined ? value : undefined;
        if (plain === null && Object.keys(cell.style ?? {}).length === 0) return;
        cells[cell.address] = { value: plain ?? null, formula: formula ?? null, style: JSON.stringify(cell.style) };
      });
      if (row.height !== undefined && ws.getRow(r).hasValues === false) cells[`row${r}`] = row.height;
    });
    const heights: Record<number, number | undefined> = {};
    for (let r = 1; r <= Math.max(ws.rowCount, 30); r++) {
      const h = ws.getRow(r).height;
      if (h) heights[r] = h;
    }
    const widths: Record<number, number | undefined> = {};
    for (let c = 1; c <= Math.max(ws.columnCount, 10); c++) {
      const w = ws.getColumn(c).width;
      if (w) widths[c] = w;
    }
    return { name: ws.name, cells, merges: [...(ws.model.merges ?? [])].sort(), heights, widths };
  });
}
