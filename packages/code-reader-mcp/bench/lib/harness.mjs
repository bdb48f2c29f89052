// Shared helpers for the benchmarks: an in-process MCP client, rg, timing and reporting.
import { performance } from 'node:perf_hooks';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PathPolicy } from '@mcp-workbench/core';
import { callTool, connectInMemory } from '@mcp-workbench/core/testing';

const here = path.dirname(fileURLToPath(import.meta.url));
// CODE_READER_BENCH_DIST: another build's dist/ (a copy of an older one beside its package.json), for A/B runs.
export const DIST = path.resolve(process.env.CODE_READER_BENCH_DIST ?? path.join(here, '../../dist'));
const run = promisify(execFile);

/** A real MCP client connected to the built server (dist/), rooted at `root`. */
export async function connectServer(root) {
  const { createServer } = await import(path.join(DIST, 'server.js'));
  const paths = await PathPolicy.create({ roots: [root] });
  const connection = await connectInMemory(createServer({ paths }));
  return {
    call: async (name, args) => {
      const result = await callTool(connection.client, name, args);
      if (result.isError) throw new Error(`${name} failed: ${result.text}`);
      return result;
    },
    close: connection.close,
  };
}

/** Flags the server passes rg on every walk (RG_SAFETY_ARGS, .gitignore outside git): the reference gets them too. */
export const RG_FLAGS = ['--no-config', '--no-follow', '--no-require-git'];

export async function rgPath() {
  const { locateRipgrep } = await import(path.join(DIST, 'rg/locate.js'));
  return locateRipgrep();
}

/** Runs rg to completion and returns its stdout (rg exits 1 when nothing matched). */
export async function runRg(args, cwd) {
  try {
    const { stdout } = await run(await rgPath(), args, { cwd, maxBuffer: 1 << 30 });
    return stdout;
  } catch (error) {
    if (error.code === 1) return error.stdout ?? '';
    throw error;
  }
}

export async function time(fn) {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Runs `a` and `b` alternately `rounds` times (after one warm-up each) and returns median times. */
export async function sideBySide(rounds, a, b) {
  await a(-1);
  await b(-1);
  const ta = [];
  const tb = [];
  for (let i = 0; i < rounds; i++) {
    ta.push((await time(() => a(i))).ms);
    tb.push((await time(() => b(i))).ms);
  }
  return { a: median(ta), b: median(tb) };
}

let failures = 0;

/** Prints one result line; `ok` false marks the benchmark as failed (non-zero exit). */
export function report(label, detail, ok) {
  console.log(`${ok ? 'PASS' : 'FAIL'}  ${label}: ${detail}`);
  if (!ok) failures++;
}

export function finish() {
  process.exitCode = failures === 0 ? 0 : 1;
}

export const fmt = (ms) => `${ms.toFixed(0)} ms`;
