// Vitest global setup: the suite's temporary folders go into one scratch folder of its own, removed when
// the run ends. The tests make hundreds of mkdtemp folders (atomic writes, servers' roots, state folders)
// and most do not remove theirs: CI's /tmp gained ~1,200 folders a run. Set before the test workers
// start, so they and the servers they spawn inherit it (os.tmpdir() reads TMPDIR on each call).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'core-tests-'));
  process.env.TMPDIR = scratch;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(scratch, { recursive: true, force: true });
  };
}
