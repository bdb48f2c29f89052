// Vitest global setup shared by the suites that make many temporary folders (core, md-review-desktop):
// they go into one scratch folder of the suite's own, removed when the run ends. Those suites make
// hundreds of mkdtemp folders (atomic writes, servers' roots, fake Electron apps' userData) and most do
// not remove theirs: a CI run left ~1,400 folders in /tmp. Set before the test workers start, so they
// and the servers they spawn inherit it (os.tmpdir() reads TMPDIR on each call).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export default function setup() {
  const previous = process.env.TMPDIR;
  const scratch = mkdtempSync(path.join(os.tmpdir(), `${path.basename(process.cwd())}-tests-`));
  process.env.TMPDIR = scratch;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(scratch, { recursive: true, force: true });
  };
}
