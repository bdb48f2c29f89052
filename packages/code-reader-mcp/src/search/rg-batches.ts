// ripgrep over a long list of targets: the list cut into runs the system's command line can take.
import { runRipgrep, type RgRunOptions, type RgRunResult } from '../rg/run.js';
import type { SearchQuery } from './types.js';

/**
 * Most bytes of file paths handed to one ripgrep process: well below the system's command-line limit
 * (Linux ~2 MiB, macOS 1 MiB; Windows 32,767 characters), so a long file list never fails with E2BIG.
 */
export const MAX_PATH_BYTES_PER_RUN = process.platform === 'win32' ? 24_000 : 256 * 1024;

/** Splits a file list into runs that each fit one command line (MAX_PATH_BYTES_PER_RUN). */
export function pathBatches(files: readonly string[], maxBytes = MAX_PATH_BYTES_PER_RUN): string[][] {
  const batches: string[][] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const file of files) {
    const size = Buffer.byteLength(file) + 1;
    if (current.length > 0 && bytes + size > maxBytes) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(file);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/**
 * Runs a search whose arguments end with `--` and the targets. Named files go in batches that each fit
 * a command line, one ripgrep after the other, all within one deadline; a reader that stops, a time
 * limit or a cancel ends the whole run. The results read as one run's.
 */
export async function runInBatches(
  query: Pick<SearchQuery, 'targets' | 'targetKind'>,
  args: string[],
  options: Omit<RgRunOptions, 'cwd' | 'timeoutMs'> & {
    deadline: number;
    /** Called after each ripgrep run ends (e.g. to read its statistics). */
    afterRun?: () => void;
  },
): Promise<RgRunResult> {
  const fixed = args.slice(0, args.length - query.targets.length);
  const batches = query.targetKind === 'files' ? pathBatches(query.targets) : [query.targets];
  const cwd = query.targetKind === 'roots' ? (query.targets[0] as string) : process.cwd();
  let stderr = '';
  let exitCode: number | null = 1;
  for (const batch of batches) {
    const timeoutMs = Math.max(1, options.deadline - Date.now());
    const result = await runRipgrep([...fixed, ...batch], { ...options, cwd, timeoutMs });
    options.afterRun?.();
    if (result.stderr) stderr = stderr ? `${stderr}\n${result.stderr}` : result.stderr;
    // 0 (found) wins over 1 (nothing in this batch); 2 (an error) wins over both.
    if (result.exitCode === 2 || exitCode === 2) exitCode = 2;
    else if (result.exitCode === 0) exitCode = 0;
    if (result.stopped || result.timedOut) return { ...result, exitCode, stderr };
  }
  return { exitCode, stderr, timedOut: false, stopped: false };
}
