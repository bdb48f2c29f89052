import { spawn, type ChildProcess } from 'node:child_process';

/** How long a launcher may take to fail before it counts as started (xdg-open fails in well under 1 s). */
export const SETTLE_MS = 1500;

/**
 * Resolves once `child` has either run for `settleMs` or exited with code 0; rejects when it could not
 * start or exited with another code within that time (a launcher that found nothing to open).
 */
export function settleLaunch(child: ChildProcess, settleMs = SETTLE_MS): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      child.off('error', onError);
      child.off('exit', onExit);
      child.unref();
      if (error) reject(error);
      else resolve();
    };
    const onError = (error: Error) => done(error);
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      done(code === 0 ? undefined : new Error(`${String(child.spawnfile)} exited with ${code ?? signal}`));
    const timer = setTimeout(() => done(), settleMs);
    child.once('error', onError);
    child.once('exit', onExit);
    if (child.exitCode !== null) onExit(child.exitCode, null);
  });
}

/** Starts a program detached from this process (it outlives the server) and checks that it started. */
export function launchDetached(command: string, args: string[], settleMs = SETTLE_MS): Promise<void> {
  const child = spawn(command, args, { detached: true, stdio: 'ignore', windowsHide: false });
  return settleLaunch(child, settleMs);
}
