// Running this Node.js as an account that may read but not write a store: as root, the account nobody;
// otherwise this account, with write permission taken away from the store by the caller.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

export const asRoot = process.getuid?.() === 0;

/**
 * This Node.js, or a copy of it in `dir` when the account nobody may not run it where it is (CI's
 * second Node.js lives under /root).
 */
export function nodeNobodyCanRun(dir: string): string {
  try {
    execFileSync('runuser', ['-u', 'nobody', '--', process.execPath, '--version'], { stdio: 'ignore' });
    return process.execPath;
  } catch {
    const copy = path.join(dir, 'node');
    execFileSync('cp', [process.execPath, copy]);
    execFileSync('chmod', ['755', copy]);
    return copy;
  }
}

/** Command and arguments that run `node args…` as the other account (see above). */
export function asOtherAccount(nodeDir: string, args: string[]): { command: string; args: string[] } {
  return asRoot
    ? { command: 'runuser', args: ['-u', 'nobody', '--', nodeNobodyCanRun(nodeDir), ...args] }
    : { command: process.execPath, args };
}
