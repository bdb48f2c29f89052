import { spawn } from 'node:child_process';

// A hostile local process for race tests: it swaps a folder inside a root with a symbolic link to a
// folder outside, over and over, as fast as it can, while the server under test works through it.
const FLIPPER = `
const fs = require('node:fs');
const [dir, outside] = process.argv.slice(1);
const real = dir + '.flip-real';
const link = dir + '.flip-link';
let flips = 0;
let stop = false;
const end = () => { stop = true; };
process.on('SIGTERM', end);
process.stdin.on('end', end); // the test process is gone
process.stdin.resume();
setTimeout(end, 120000).unref(); // never outlive a stuck test
const flip = () => {
  fs.symlinkSync(outside, link);
  fs.renameSync(dir, real);
  fs.renameSync(link, dir); // dir is now a link out of the root
  fs.renameSync(dir, link);
  fs.renameSync(real, dir); // and a folder again
  fs.unlinkSync(link);
  flips++;
};
// The server may create dir again while it is renamed away: put the real folder back in its place.
const recover = () => {
  try { fs.unlinkSync(link); } catch {}
  if (!fs.existsSync(real)) return;
  try {
    if (fs.lstatSync(dir).isSymbolicLink()) fs.unlinkSync(dir);
    else fs.rmSync(dir, { recursive: true, force: true });
  } catch {}
  try { fs.renameSync(real, dir); } catch {}
};
(async () => {
  process.stdout.write('ready\\n');
  for (let i = 0; !stop; i++) {
    try { flip(); } catch { recover(); }
    if (i % 16 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  recover();
  process.stdout.write('flips ' + flips + '\\n');
  process.exit(0);
})();
`;

export interface LinkFlipper {
  /** Stops flipping (the folder is a folder again) and resolves once the process is gone. */
  stop(): Promise<void>;
  /** How many times the folder was swapped for a link (known after stop). */
  flips(): number;
}

/** Starts a process that keeps swapping `dir` (a folder) with a symlink to `outside`. */
export async function startLinkFlipper(dir: string, outside: string): Promise<LinkFlipper> {
  const child = spawn(process.execPath, ['-e', FLIPPER, dir, outside], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('ready')) resolve();
    });
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
    flips: () => Number(/flips (\d+)/.exec(out)?.[1] ?? 0),
  };
}
