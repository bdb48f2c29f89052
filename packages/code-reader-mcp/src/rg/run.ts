import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { ToolError } from '@mcp-workbench/core/engine';
import { locateRipgrep } from './locate.js';

export interface RgRunOptions {
  cwd: string;
  /** Called for each stdout line; return false to stop ripgrep early (enough results). */
  onLine(line: string): boolean | void;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface RgRunResult {
  /** rg's exit code: 0 found, 1 found nothing, 2 error (results may still be partial). */
  exitCode: number | null;
  stderr: string;
  timedOut: boolean;
  /** onLine asked to stop before rg finished. */
  stopped: boolean;
}

const MAX_STDERR = 16_384;

/** Runs rg without a shell (arguments are passed as an array, never interpreted). */
export async function runRipgrep(args: readonly string[], options: RgRunOptions): Promise<RgRunResult> {
  const binary = await locateRipgrep();
  if (options.signal?.aborted) throw new ToolError('CANCELLED', 'The request was cancelled.');
  return new Promise<RgRunResult>((resolve, reject) => {
    const child = spawn(binary, args, { cwd: options.cwd, shell: false, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let timedOut = false;
    let stopped = false;
    let settled = false;
    const stop = () => {
      if (!child.killed) child.kill('SIGTERM');
    };
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            stop();
          }, options.timeoutMs);
    const onAbort = () => stop();
    options.signal?.addEventListener('abort', onAbort, { once: true });

    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < MAX_STDERR) stderr += chunk;
    });
    const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
    lines.on('line', (line) => {
      if (stopped || timedOut) return;
      if (options.onLine(line) === false) {
        stopped = true;
        stop();
      }
    });
    const finish = (exitCode: number | null) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (options.signal?.aborted) {
        reject(new ToolError('CANCELLED', 'The request was cancelled.'));
        return;
      }
      resolve({ exitCode, stderr: stderr.trim(), timedOut, stopped });
    };
    child.on('error', (error) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      reject(
        new ToolError('BACKEND_UNAVAILABLE', `Could not start ripgrep (${binary}): ${error.message}`, {
          hint: 'Check that the rg binary is executable, or set CODE_READER_RG_PATH to a working rg.',
          cause: error,
        }),
      );
    });
    // Wait for stdout to drain so no line is lost, then report the exit code.
    let exitCode: number | null = null;
    let exited = false;
    let drained = false;
    child.on('exit', (code) => {
      exitCode = code;
      exited = true;
      if (drained) finish(exitCode);
    });
    lines.on('close', () => {
      drained = true;
      if (exited) finish(exitCode);
    });
  });
}

/** rg exits 2 on errors; a pattern it cannot compile is the caller's mistake, the rest is ours. */
export function ripgrepFailure(result: RgRunResult, what: string): ToolError | undefined {
  if (result.exitCode !== 2 || result.stopped || result.timedOut) return undefined;
  const message = result.stderr || 'ripgrep failed without a message.';
  if (/regex parse error|error parsing glob|unrecognized|invalid/i.test(message)) {
    return new ToolError('INVALID_ARGUMENT', `ripgrep rejected the ${what}: ${firstLines(message)}`, {
      hint: 'Fix the pattern or glob (or pass fixed_strings: true to search literally).',
    });
  }
  return undefined;
}

function firstLines(text: string): string {
  return text.split('\n').slice(0, 6).join('\n');
}
