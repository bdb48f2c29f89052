// auto_fit_columns loads the renderer's cell text (numfmt) when such an op is about to run, not with the
// edit engine: a first patch without it loads the engine ~18 ms sooner (issue 26 §1, the patch's first
// call). The widths still come from the text a cell shows, in process (src) and through the built bin
// (its bundle inlines the module and starts it on first use).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { callTool, spawnStdioClient } from '@mcp-workbench/core/testing';
import { workspace, type Workspace } from './patch-helpers.js';

const numfmt = vi.hoisted(() => ({ loaded: false }));
vi.mock('numfmt', async (importOriginal) => {
  numfmt.loaded = true;
  return await importOriginal();
});

const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'index.js');

interface EditResult {
  out_path: string;
  patch_diff: Array<{ op: string; after: { value: string } }>;
}

/**
 * Ops that write 0.1 + 0.2 (General shows 0.3) in A1 and the text "0.3" in B1, then fit both
 * columns: when the width comes from the text shown, the two widths are the same.
 */
const SHOWN_ALIKE = [
  { op: 'set_range_values', sheet: 'Sheet1', range: 'A1:B1', values: [[0.1 + 0.2, '0.3']] },
  { op: 'auto_fit_columns', sheet: 'Sheet1', columns: ['A', 'B'] },
];

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

describe('auto_fit_columns loads number formatting on first use', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await workspace();
  });
  afterAll(async () => {
    await ws.close();
  });

  it('is not loaded by the edit engine nor by a patch without the op; the op loads it and fits the text shown', async () => {
    expect(numfmt.loaded).toBe(false); // the workspace has loaded the edit engine
    const made = await ws.call<EditResult>('exstruct_make', {
      out_path: 'lazy.xlsx',
      ops: [SHOWN_ALIKE[0]],
    });
    expect(made.isError, made.text).toBe(false);
    expect(numfmt.loaded).toBe(false);

    const fitted = await ws.call<EditResult>('exstruct_patch', {
      xlsx_path: 'lazy.xlsx',
      ops: [SHOWN_ALIKE[1]],
    });
    expect(fitted.isError, fitted.text).toBe(false);
    expect(numfmt.loaded).toBe(true);
    const widths = fittedWidths(fitted.structured);
    expect(widths.A).toBeGreaterThan(0);
    expect(widths.A).toBe(widths.B);
  });
});

describe('auto_fit_columns through the built bin', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'exstruct-auto-fit-bin-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("fits the text shown in a fresh server's first edit", async () => {
    const client = await spawnStdioClient(process.execPath, [bin, '--root', dir]);
    try {
      const made = await callTool<EditResult>(client.client, 'exstruct_make', {
        out_path: 'bin.xlsx',
        ops: SHOWN_ALIKE,
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
