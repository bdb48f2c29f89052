// Vitest global setup: the suite's temporary folders (each fake Electron app's userData) go into one
// scratch folder, removed when the run ends, instead of ~75 folders left in /tmp a run. Set before the
// test workers start, so they inherit it (os.tmpdir() reads TMPDIR on each call).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'md-review-desktop-tests-'));
  process.env.TMPDIR = scratch;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(scratch, { recursive: true, force: true });
  };
}
