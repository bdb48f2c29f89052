// Checks that a workbook written by this package opens in readers that are not ours: every XML part
// parsed strictly and namespace-aware by saxes (always), and the whole workbook loaded by openpyxl
// (Debian's python3-openpyxl) when it is installed. CI installs it and sets EXSTRUCT_REQUIRE_OPENPYXL=1,
// which turns its absence into a failure instead of a skip.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { SaxesParser } from 'saxes';
import { afterAll, beforeAll } from 'vitest';
import { ZipArchive } from '../src/ooxml/zip-archive.js';

const run = promisify(execFile);

/** Debian's interpreter (pyenv shims elsewhere on PATH have no openpyxl). */
const PYTHON = ['/usr/bin/python3', 'python3'].find((p) => (p.startsWith('/') ? existsSync(p) : true))!;

const moduleStates = new Map<string, Promise<boolean>>();

/** Whether Debian's Python `module` can be imported; throws when CI requires it (`requiredBy`) and it is missing. */
function pythonModuleAvailable(module: string, requiredBy: string, debianPackage: string): Promise<boolean> {
  let state = moduleStates.get(module);
  if (!state) {
    state = run(PYTHON, ['-c', `import ${module}`]).then(
      () => true,
      () => {
        if (process.env[requiredBy] === '1')
          throw new Error(`${module} is required (${requiredBy}=1): apt-get install -y ${debianPackage}`);
        return false;
      },
    );
    moduleStates.set(module, state);
  }
  return state;
}

/** Whether openpyxl can be used; throws when CI requires it and it is missing. */
export function openpyxlAvailable(): Promise<boolean> {
  return pythonModuleAvailable('openpyxl', 'EXSTRUCT_REQUIRE_OPENPYXL', 'python3-openpyxl');
}

/** Whether XlsxWriter (a reference producer) can be used; throws when CI requires it and it is missing. */
export function xlsxwriterAvailable(): Promise<boolean> {
  return pythonModuleAvailable('xlsxwriter', 'EXSTRUCT_REQUIRE_XLSXWRITER', 'python3-xlsxwriter');
}

/** Parses every XML part of a package with saxes (strict, namespaces on); returns the problems found. */
export async function strictXmlProblems(file: string): Promise<string[]> {
  const problems: string[] = [];
  const zip = await ZipArchive.open(file);
  try {
    const names = new Set(zip.list().map((e) => e.name));
    for (const { name } of zip.list()) {
      if (!/\.(xml|rels)$/i.test(name)) continue;
      const parser = new SaxesParser({ xmlns: true, position: true });
      let error: Error | undefined;
      parser.on('error', (e) => {
        error ??= e;
      });
      parser.write((await zip.readText(name)).replace(/^\uFEFF/, ''));
      parser.close();
      if (error) problems.push(`${name}: ${error.message}`);
    }
    if (!names.has('[Content_Types].xml')) problems.push('no [Content_Types].xml');
  } finally {
    zip.close();
  }
  return problems;
}

const OPENPYXL_SCRIPT = `
import json, sys, warnings
warnings.simplefilter("ignore")
import openpyxl
out = {}
for path in sys.argv[1:]:
    try:
        wb = openpyxl.load_workbook(path, keep_vba=path.lower().endswith(("m",)))
        cells = 0
        for ws in wb.worksheets:
            for row in ws.iter_rows():
                for c in row:
                    if c.value is not None:
                        cells += 1
        out[path] = {"ok": True, "sheets": wb.sheetnames, "cells": cells}
    except Exception as e:
        out[path] = {"ok": False, "error": "%s: %s" % (type(e).__name__, e)}
print(json.dumps(out))
`;

export interface OpenpyxlResult {
  ok: boolean;
  sheets?: string[];
  cells?: number;
  error?: string;
}

/** Loads workbooks with openpyxl in one process; undefined when openpyxl is not installed. */
export async function loadWithOpenpyxl(files: string[]): Promise<Record<string, OpenpyxlResult> | undefined> {
  if (files.length === 0 || !(await openpyxlAvailable())) return undefined;
  const { stdout } = await run(PYTHON, ['-c', OPENPYXL_SCRIPT, ...files], { maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout) as Record<string, OpenpyxlResult>;
}

/** Runs a Python script with openpyxl importable; its stdout, or undefined when openpyxl is missing. */
export async function runWithOpenpyxl(script: string, args: string[]): Promise<string | undefined> {
  if (!(await openpyxlAvailable())) return undefined;
  const { stdout } = await run(PYTHON, ['-c', script, ...args], { maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

/**
 * A workbook openpyxl makes in a temp folder of its own (`script` saves it to sys.argv[1]), made before
 * a test file's tests and removed after them: `file()` is its path, undefined when openpyxl is missing
 * (.ci/run installs python3-openpyxl and requires it; elsewhere the tests say why they skip).
 */
export function useOpenpyxlWorkbook(name: string, script: string): { file(): string | undefined } {
  let dir: string | undefined;
  let file: string | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'exstruct-openpyxl-'));
    const target = path.join(dir, name);
    if ((await runWithOpenpyxl(script, [target])) !== undefined) file = target;
  }, 60_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return { file: () => file };
}

/** A zip's entry names as Python's zipfile lists them; undefined when the Python checkers are missing. */
export async function zipEntryNames(file: string): Promise<string[] | undefined> {
  const out = await runWithOpenpyxl(
    'import sys, zipfile, json; print(json.dumps(zipfile.ZipFile(sys.argv[1]).namelist()))',
    [file],
  );
  return out === undefined ? undefined : (JSON.parse(out) as string[]);
}

/**
 * Every problem independent readers have with these workbooks (an empty list when all open): the
 * strict XML parse of each part, then openpyxl where present.
 */
export async function independentProblems(files: string[]): Promise<string[]> {
  const problems: string[] = [];
  for (const file of files) for (const p of await strictXmlProblems(file)) problems.push(`${file}: ${p}`);
  const loaded = await loadWithOpenpyxl(files);
  for (const [file, result] of Object.entries(loaded ?? {}))
    if (!result.ok) problems.push(`${file}: openpyxl: ${result.error}`);
  return problems;
}

// openpyxl takes a second or two to start on a busy machine, so the workbooks a test file wrote are
// checked in one python process when the file ends (test/setup.ts), not one per workspace.
interface PendingCheck {
  /** The test that wrote the files, named in a failure. */
  test: string;
  files: string[];
  /** Removes the files once checked. */
  cleanup: () => Promise<void>;
}

const pending: PendingCheck[] = [];

/** Queues workbooks for the openpyxl check at the end of the test file; `cleanup` runs after it. */
export function deferOpenpyxlCheck(check: PendingCheck): void {
  pending.push(check);
}

/** Loads every queued workbook with openpyxl in one process, cleans up, and throws on any refusal. */
export async function flushOpenpyxlChecks(): Promise<void> {
  const batch = pending.splice(0);
  try {
    const loaded = await loadWithOpenpyxl(batch.flatMap((c) => c.files));
    const problems = batch.flatMap((check) =>
      check.files
        .filter((file) => loaded?.[file] && !loaded[file].ok)
        .map((file) => `${check.test}: ${file}: openpyxl: ${loaded![file]!.error}`),
    );
    if (problems.length) throw new Error(`openpyxl refused written workbooks:\n${problems.join('\n')}`);
  } finally {
    for (const check of batch) await check.cleanup();
  }
}
