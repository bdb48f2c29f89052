// auto_fit_columns loads the renderer's cell text (numfmt) when such an op is about to run, not with the
// edit engine: a first patch without it loads the engine ~18 ms sooner (issue 26 §1, the patch's first
// call). Checked in a fresh process on the built modules (a module hook notes what is resolved; the test
// files share one module cache, so an earlier file may have loaded numfmt here already), and through the
// built bin, whose bundle inlines the module and starts it on first use: the widths still come from the
// text a cell shows.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, spawnStdioClient, writeResolveHook } from '@mcp-workbench/core/testing';

const DIST = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const bin = path.join(DIST, 'index.js');

/**
 * Ops that write 0.1 + 0.2 (General shows 0.3) in A1 and the text "0.3" in B1, then fit both
 * columns: when the width comes from the text shown, the two widths are the same.
 */
const VALUES = { op: 'set_range_values', sheet: 'Sheet1', range: 'A1:B1', values: [[0.1 + 0.2, '0.3']] };
const FIT = { op: 'auto_fit_columns', sheet: 'Sheet1', columns: ['A', 'B'] };

interface EditResult {
  out_path: string;
  patch_diff: Array<{ op: string; after: { value: string } }>;
}

/** The widths an auto_fit_columns diff item gives, by column letter. */
function fittedWidths(result: EditResult): Record<string, number> {
  const fitted = result.patch_diff.find((item) => item.op === 'auto_fit_columns');
  const widths = /widths (.*)$/.exec(fitted?.after.value ?? '')?.[1] ?? '';
  const entries = widths.split(', ').map((pair): [string, number] => {
    const [column = '', width] = pair.split('=');
    return [column, Number(width)];
  });
  return Object.fromEntries(entries);
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'exstruct-auto-fit-lazy-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('auto_fit_columns loads number formatting on first use', () => {
  it('is not loaded with the edit engine nor by an edit without the op; the op loads it', async () => {
    const hook = await writeResolveHook(dir);
    // The edit engine's modules (not the bundle, whose inlined modules no hook sees): load, make a
    // workbook without the op, then fit it; after each step, whether numfmt has been resolved.
    const script = path.join(dir, 'edit.mjs');
    await writeFile(
      script,
      `import { readFileSync } from 'node:fs';
const numfmt = () => readFileSync(${JSON.stringify(hook.file)}, 'utf8').includes('/numfmt/');
const seen = [];
const engine = await import(${JSON.stringify(pathToFileURL(path.join(DIST, 'tools', 'edit-engine.js')).href)});
seen.push(numfmt());
const output = ${JSON.stringify(path.join(dir, 'fresh.xlsx'))};
const made = await engine.runMake({ output, ops: engine.parseOps([${JSON.stringify(VALUES)}]), onConflict: 'overwrite' });
seen.push(numfmt());
const fitted = await engine.runPatch({ input: made.out_path, output: made.out_path.replace('.xlsx', '_fit.xlsx'), ops: engine.parseOps([${JSON.stringify(FIT)}]), onConflict: 'overwrite' });
seen.push(numfmt());
console.log(JSON.stringify({ seen, fitted }));
`,
    );
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', hook.register, script]);
    const { seen, fitted } = JSON.parse(stdout) as { seen: boolean[]; fitted: EditResult };
    // The hook sees numfmt once it is resolved at all, and only the op resolves it.
    expect(seen).toEqual([false, false, true]);
    const widths = fittedWidths(fitted);
    expect(widths.A).toBeGreaterThan(0);
    expect(widths.A).toBe(widths.B);
    expect((await hook.urls()).some((url) => url.endsWith('render/cell-text.js'))).toBe(true);
  });

  it("fits the text shown in a fresh server's first edit (the built bin)", async () => {
    const client = await spawnStdioClient(process.execPath, [bin, '--root', dir]);
    try {
      const made = await callTool<EditResult>(client.client, 'exstruct_make', {
        out_path: 'bin.xlsx',
        ops: [VALUES, FIT],
      });
      expect(made.isError, made.text).toBe(false);
      const widths = fittedWidths(made.structured);
      expect(widths.A).toBeGreaterThan(0);
      expect(widths.A).toBe(widths.B);
    } finally {
      await client.close();
    }
  });
});
