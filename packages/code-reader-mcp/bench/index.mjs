// `pnpm bench`: runs every bench/*.bench.mjs of this package in turn (listing, search, metrics, …).
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv[2];
const benches = readdirSync(here)
  .filter((name) => name.endsWith('.bench.mjs') && (!only || name.includes(only)))
  .sort();
let failed = 0;
for (const name of benches) {
  console.log(`\n=== ${name}`);
  const run = spawnSync(process.execPath, ['--expose-gc', path.join(here, name)], { stdio: 'inherit' });
  if (run.status !== 0) failed++;
}
if (benches.length === 0) console.log('No benchmarks found.');
process.exit(failed === 0 ? 0 : 1);
