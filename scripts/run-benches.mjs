// `pnpm bench` in a package: runs every bench/*.bench.mjs of the package (the current directory) in turn,
// each in its own process; `pnpm bench <word>` runs only those whose name contains the word.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const dir = path.join(process.cwd(), 'bench');
const only = process.argv[2];
const benches = readdirSync(dir)
  .filter((name) => name.endsWith('.bench.mjs') && (!only || name.includes(only)))
  .sort();
let failed = 0;
for (const name of benches) {
  console.log(`\n=== ${name}`);
  const run = spawnSync(process.execPath, ['--expose-gc', path.join(dir, name)], { stdio: 'inherit' });
  if (run.status !== 0) failed++;
}
if (benches.length === 0) console.log('No benchmarks found.');
process.exit(failed === 0 ? 0 : 1);
