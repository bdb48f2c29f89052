// The benchmark corpus: a copy of real trees nobody here wrote — the workspace's installed npm packages
// (node_modules/.pnpm: published JavaScript, TypeScript, JSON, Markdown, CSS of ~700 packages), the
// system's C/C++ headers (/usr/include), Python's standard library and Debian's Python packages
// (/usr/lib/python3*) and Perl modules (/usr/share/perl). Copied once (about a minute) to
// ~/.cache/code-reader-mcp-bench/real-tree, outside any git repository (the workspace's .gitignore would
// hide every node_modules folder); CODE_READER_BENCH_CORPUS names another place.
import { performance } from 'node:perf_hooks';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const WORKSPACE = path.resolve(here, '../../../..');
export const CORPUS =
  process.env.CODE_READER_BENCH_CORPUS ??
  path.join(os.homedir(), '.cache', 'code-reader-mcp-bench', 'real-tree');
/** The issue asks for a tree of at least 30,000 real files. */
export const MIN_FILES = 30_000;
const MARKER = path.join(CORPUS, '.copied');

/** Where each part of the corpus comes from (parts whose source is missing are left out). */
const SOURCES = [
  ['npm', path.join(WORKSPACE, 'node_modules', '.pnpm')],
  ['c-headers', '/usr/include'],
  ['python3.11', '/usr/lib/python3.11'],
  ['python3', '/usr/lib/python3'],
  ['perl', '/usr/share/perl'],
];

function countFiles(dir) {
  let n = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) n += countFiles(path.join(dir, entry.name));
    else if (entry.isFile()) n++;
  }
  return n;
}

/** The corpus directory, copied on first use. */
export function ensureCorpus() {
  if (existsSync(MARKER)) return CORPUS;
  const started = performance.now();
  rmSync(CORPUS, { recursive: true, force: true });
  mkdirSync(CORPUS, { recursive: true });
  const parts = [];
  for (const [name, source] of SOURCES) {
    if (!existsSync(source)) continue;
    // Symbolic links are copied as links (rg and list_files do not follow them).
    cpSync(source, path.join(CORPUS, name), { recursive: true, verbatimSymlinks: true });
    parts.push(`${name} ← ${source}`);
  }
  const files = countFiles(CORPUS);
  if (files < MIN_FILES) {
    throw new Error(`The corpus has ${files} files, fewer than ${MIN_FILES}: ${parts.join(', ')}.`);
  }
  writeFileSync(MARKER, `${files} files\n${parts.join('\n')}\n`);
  console.log(`copied ${files} real files to ${CORPUS} (${Math.round(performance.now() - started)} ms)`);
  return CORPUS;
}

/** What the corpus holds, for the report. */
export function corpusSummary() {
  return readFileSync(MARKER, 'utf8').trim().replace(/\n/g, '; ');
}
