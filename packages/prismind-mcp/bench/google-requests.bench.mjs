// `pnpm bench google`: the Google backend's cost is HTTP requests, not milliseconds against a fake, so
// this prints how many requests each tool call makes against the local fake of the Google APIs (a
// project with 12 tasks, 7 documents and 5 knowledge entries), beside the goals
// (start_session ≤ 3, update_progress ≤ 2), which test/google-requests.test.ts also enforces.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const vitestPackage = createRequire(path.join(pkg, 'package.json')).resolve('vitest/package.json');
const vitest = path.join(path.dirname(vitestPackage), 'vitest.mjs');
const run = spawnSync(
  process.execPath,
  [vitest, 'run', 'test/google-requests.test.ts', '--reporter=dot', '--silent=false'],
  { cwd: pkg, stdio: 'inherit', env: { ...process.env, PRISMIND_PRINT_REQUESTS: '1' } },
);
console.log('Goals: start_session ≤ 3 requests, update_progress ≤ 2 (a failed goal fails the run above).');
process.exit(run.status ?? 1);
