import { spawn, type ChildProcess } from 'node:child_process';
import { close, closeSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ToolError } from '@mcp-workbench/core/engine';
import { JsonClipper } from './json-clipper.js';
import { locateRipgrep } from './locate.js';

/** A record that streamed in too long to keep and was cut on the way (see JsonClipper). */
export interface ClippedInfo {
  /** Its size as ripgrep wrote it. */
  bytes: number;
  /** Array items left out (for a match: submatches beyond the kept ones). */
  droppedItems: number;
  /** Bytes of its longest string before clipping (for a match or context record: the line). */
  longestString: number;
}

export interface RgRunOptions {
  cwd: string;
  /**
   * Called for each stdout record; return false to stop ripgrep early (enough results). A `--json`
   * record over `maxRecordBytes` arrives cut short (valid JSON, long strings and arrays clipped) with
   * `clipped` saying so: one huge minified line must not exhaust the heap.
   */
  onLine(line: string, clipped?: ClippedInfo): boolean | void;
  /**
   * Takes stdout as it comes, in place of `onLine` (never called then): for a reader that splits the
   * bytes itself and builds no string per record. Return false to stop ripgrep early.
   */
  onChunk?: (chunk: Buffer) => boolean | void;
  /**
   * Takes a '\n' record of more than LONG_RECORD_BYTES (within maxRecordBytes) as bytes, before it is
   * decoded: returns what onLine would, or undefined to have it decoded and given to onLine as usual.
   * Decoding and parsing such records (a match in minified code) was most of a rare search's time.
   */
  onLongRecord?: (record: Buffer) => boolean | undefined;
  /**
   * What ends a record: '\n' (default, e.g. `--json` lines) or '\0' (`--files --null`, so that file
   * names holding a newline survive).
   */
  separator?: '\n' | '\0';
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Records (lines) longer than this are clipped while they stream in (default 1 MiB). */
  maxRecordBytes?: number;
  /**
   * ripgrep writes to a private temporary file, read once it has ended, instead of a pipe read as it
   * comes: for a run that is read to its end (its reader never stops it). A parallel `--count-matches`
   * writes each file's count on its own, and reading 3.6 MB in ~15,000 pipe reads cost Node ~0.7 s of
   * CPU taken from ripgrep's two cores; a file is read in a few large reads (issue 25).
   */
  spool?: boolean;
  /** Where the spool file's private folder goes (default: the system's temporary folder). */
  spoolDir?: string;
  /** Called once ripgrep has been started: work that can wait until ripgrep runs goes here. */
  onSpawn?: () => void;
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
/** Records longer than this go to onLongRecord first (they span chunks of ripgrep's output). */
export const LONG_RECORD_BYTES = 64 * 1024;
export const MAX_RECORD_BYTES = 1024 * 1024;

/**
 * What ripgrep is always started with: no config file (a RIPGREP_CONFIG_PATH with --follow would walk
 * links out of the roots), and never following links, whatever else the arguments say.
 */
export const RG_SAFETY_ARGS = ['--no-config', '--no-follow'] as const;

/**
 * ripgrep's environment: nothing of the server's (no RIPGREP_CONFIG_PATH, no variables a
 * preprocessor could read), except what Windows needs to start a process at all.
 */
export function ripgrepEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  if (process.platform !== 'win32') return {};
  const keep: NodeJS.ProcessEnv = {};
  for (const name of ['SystemRoot', 'SYSTEMROOT', 'windir']) if (env[name]) keep[name] = env[name];
  return keep;
}

/** The command line is too long for the OS (one argument over 128 KiB, or all over ~2 MiB on Linux). */
function commandTooLong(error: unknown): ToolError {
  return new ToolError('LIMIT_EXCEEDED', 'The search is too large to hand to ripgrep in one command.', {
    hint: 'Use a shorter query or fewer globs, or search fewer files at a time (a lower file_limit).',
    cause: error,
  });
}

/**
 * Where a record that came in several chunks is put together (within maxRecordBytes, so bounded): one
 * buffer reused, since allocating a fresh one for each long record cost more than copying into it.
 * Records are handed on synchronously and never kept, so one buffer serves every run.
 */
let assembly = Buffer.alloc(0);

function assemble(parts: readonly Buffer[], last: Buffer): Buffer {
  let size = last.length;
  for (const part of parts) size += part.length;
  if (assembly.length < size) assembly = Buffer.allocUnsafe(Math.max(size, 2 * assembly.length));
  let offset = 0;
  for (const part of parts) offset += part.copy(assembly, offset);
  last.copy(assembly, offset);
  return assembly.subarray(0, size);
}

/** Runs rg without a shell (arguments are passed as an array, never interpreted). */
export async function runRipgrep(args: readonly string[], options: RgRunOptions): Promise<RgRunResult> {
  const binary = await locateRipgrep();
  // spawn throws on a NUL byte in an argument; the tools name the field, this is the last guard.
  if (args.some((arg) => arg.includes('\0'))) {
    throw new ToolError('INVALID_ARGUMENT', 'An argument for ripgrep contains a NUL byte.', {
      hint: 'Remove the NUL character from the query and globs.',
    });
  }
  if (options.signal?.aborted) throw new ToolError('CANCELLED', 'The request was cancelled.');
  const spool = options.spool ? tryOpenSpool(options.spoolDir ?? os.tmpdir()) : undefined;
  let child: ChildProcess;
  try {
    child = spawn(binary, [...RG_SAFETY_ARGS, ...args], {
      cwd: options.cwd,
      env: ripgrepEnvironment(),
      shell: false,
      stdio: ['ignore', spool ? spool.fd : 'pipe', 'pipe'],
    });
  } catch (error) {
    spool?.close();
    if ((error as { code?: string }).code === 'E2BIG') throw commandTooLong(error);
    throw error;
  }
  // ripgrep holds the file open now: its name can go (POSIX); Windows removes it after the close.
  spool?.unlinkEarly();
  options.onSpawn?.();
  return new Promise<RgRunResult>((resolve, reject) => {
    let stderr = '';
    let timedOut = false;
    let stopped = false;
    let settled = false;
    let cancelled = false;
    /** Thrown by onLine: ripgrep is stopped and the run fails with it (never an uncaught exception). */
    let consumerError: unknown;
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
    const onAbort = () => {
      cancelled = true;
      stop();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });

    const stdout = child.stdout;
    const stderrStream = child.stderr!;
    stderrStream.setEncoding('utf8');
    stderrStream.on('data', (chunk: string) => {
      if (stderr.length < MAX_STDERR) stderr += chunk;
    });
    const separator = options.separator === '\0' ? 0 : 10;
    const maxRecord = options.maxRecordBytes ?? MAX_RECORD_BYTES;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let clipper: JsonClipper | undefined;
    /**
     * After a stop, a cancel or a failed reader, records are not read any more; after the time limit's
     * kill neither (the last may be cut short), except from a spool file: all of it was written before.
     */
    const done = () => stopped || (timedOut && !spool) || cancelled || consumerError !== undefined;
    const deliver = (line: string, clipped?: ClippedInfo) => {
      if (done()) return;
      try {
        if (options.onLine(line, clipped) !== false) return;
        stopped = true;
      } catch (error) {
        consumerError = error;
      }
      stop();
    };
    const onLongRecord = options.onLongRecord;
    /** A long record to onLongRecord; false when it is to be decoded as usual. */
    const deliverLong = (record: Buffer): boolean => {
      if (!onLongRecord) return false;
      if (done()) return true;
      try {
        const answer = onLongRecord(record);
        if (answer === undefined) return false;
        if (answer !== false) return true;
        stopped = true;
      } catch (error) {
        consumerError = error;
      }
      stop();
      return true;
    };
    const emit = (last: Buffer) => {
      if (clipper) {
        clipper.feed(last);
        const { text, droppedItems, longestString } = clipper.finish();
        deliver(text, { bytes: pendingBytes + last.length, droppedItems, longestString });
      } else {
        const record = pending.length === 0 ? last : assemble(pending, last);
        if (separator !== 10 || record.length <= LONG_RECORD_BYTES || !deliverLong(record)) {
          let line = record.toString('utf8');
          if (separator === 10 && line.endsWith('\r')) line = line.slice(0, -1);
          deliver(line);
        }
      }
      pending = [];
      pendingBytes = 0;
      clipper = undefined;
    };
    // Part of a record: kept, or once the record is too long, copied through the clipper.
    const take = (part: Buffer) => {
      if (clipper) clipper.feed(part);
      else if (separator === 10 && pendingBytes + part.length > maxRecord) {
        clipper = new JsonClipper();
        for (const kept of pending) clipper.feed(kept);
        clipper.feed(part);
        pending = [];
      } else pending.push(part);
      pendingBytes += part.length;
    };
    const separatorChar = String.fromCharCode(separator);
    const onChunk = options.onChunk;
    const onData = (chunk: Buffer) => {
      if (onChunk) {
        if (done()) return;
        try {
          if (onChunk(chunk) !== false) return;
          stopped = true;
        } catch (error) {
          consumerError = error;
        }
        stop();
        return;
      }
      const first = chunk.indexOf(separator);
      if (first < 0) {
        take(chunk);
        return;
      }
      // The record begun in an earlier chunk ends here.
      emit(chunk.subarray(0, first));
      let start = first + 1;
      const last = chunk.lastIndexOf(separator);
      if (last > first && last - start <= maxRecord) {
        // The whole records in between are each shorter than maxRecord (none needs clipping): decoded
        // as one string and split, not one Buffer copy and decode per record (43,000 file names).
        const lines = chunk.toString('utf8', start, last).split(separatorChar);
        for (let line of lines) {
          if (separator === 10 && line.endsWith('\r')) line = line.slice(0, -1);
          deliver(line);
        }
        start = last + 1;
      }
      for (let end = chunk.indexOf(separator, start); end >= 0; end = chunk.indexOf(separator, start)) {
        emit(chunk.subarray(start, end));
        start = end + 1;
      }
      if (start < chunk.length) take(chunk.subarray(start));
    };
    const finish = (exitCode: number | null) => {
      if (settled) return;
      settled = true;
      spool?.close();
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (options.signal?.aborted) {
        reject(new ToolError('CANCELLED', 'The request was cancelled.'));
        return;
      }
      if (consumerError !== undefined) {
        reject(
          consumerError instanceof Error ? consumerError : new Error('The ripgrep output reader failed.'),
        );
        return;
      }
      resolve({ exitCode, stderr: stderr.trim(), timedOut, stopped });
    };
    child.on('error', (error) => {
      if (settled) return;
      settled = true;
      spool?.close();
      if (timer) clearTimeout(timer);
      if ((error as { code?: string }).code === 'E2BIG') {
        reject(commandTooLong(error));
        return;
      }
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
    let killedBySignal = false;
    const ended = () => {
      // A last record without its separator is whole only if rg ended by itself.
      if (pendingBytes > 0 && !killedBySignal) emit(Buffer.alloc(0));
      pending = [];
      drained = true;
      if (exited) finish(exitCode);
    };
    child.on('exit', (code, signal) => {
      exitCode = code;
      killedBySignal = signal !== null;
      exited = true;
      if (spool) {
        // Everything ripgrep wrote is in the file now: read it in large pieces, as a pipe would give it.
        readSpool(spool.fd, onData, done)
          .then(ended)
          .catch((error: unknown) => {
            consumerError ??= error;
            ended();
          });
      } else if (drained) finish(exitCode);
    });
    if (stdout) {
      stdout.on('data', onData);
      stdout.on('close', ended);
    }
  });
}

const SPOOL_READ_BYTES = 1024 * 1024;

/** openSpool, or undefined (the run reads a pipe then) where no temporary file can be made. */
function tryOpenSpool(parent: string): ReturnType<typeof openSpool> | undefined {
  try {
    return openSpool(parent);
  } catch {
    return undefined; // e.g. a read-only or missing temporary folder: slower, not broken
  }
}

/** A private temporary file for ripgrep's stdout (see RgRunOptions.spool). */
function openSpool(parent: string): { fd: number; unlinkEarly(): void; close(): void } {
  const dir = mkdtempSync(path.join(parent, 'code-reader-rg-'));
  const file = path.join(dir, 'stdout');
  let fd: number;
  try {
    fd = openSync(file, 'w+', 0o600);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  let removed = false;
  const remove = () => {
    if (removed) return;
    try {
      rmSync(dir, { recursive: true, force: true });
      removed = true;
    } catch {
      // Windows: still open; removed after the close.
    }
  };
  let closed = false;
  return {
    fd,
    unlinkEarly: () => {
      if (process.platform !== 'win32') remove();
    },
    close: () => {
      if (closed) return;
      closed = true;
      // Its name is gone already (POSIX): the last close frees the file, which on a busy disk waited
      // for the file system's journal (0.2-2 ms, once 45 ms, measured under load); off the event loop.
      if (removed) close(fd, () => undefined);
      else {
        closeSync(fd);
        remove();
      }
    },
  };
}

/** Feeds a spool file to `onData` from its start, in large pieces, letting the event loop turn between them. */
async function readSpool(fd: number, onData: (chunk: Buffer) => void, done: () => boolean): Promise<void> {
  for (let position = 0; !done();) {
    const buffer = Buffer.allocUnsafe(SPOOL_READ_BYTES);
    const read = readSync(fd, buffer, 0, SPOOL_READ_BYTES, position);
    if (read === 0) return;
    position += read;
    onData(buffer.subarray(0, read));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** ripgrep messages that mean the query or flags are wrong (rg searched nothing), with a hint each. */
const INVALID_QUERY: [RegExp, string][] = [
  [/literal "\\n" is not allowed|multiline/i, 'The query matches a line break: set multiline: true.'],
  [/look-around|backreferences/i, 'Rewrite the pattern without look-around or backreferences.'],
  [
    /regex parse error|error parsing glob|unrecognized|invalid|not allowed|too big|exceeds/i,
    'Fix the pattern or glob (or pass fixed_strings: true to search literally).',
  ],
];

/**
 * rg exits 2 on errors. One that rejects the query or flags (rg then searched nothing) is the caller's
 * mistake: INVALID_ARGUMENT with rg's message. Unreadable files and the like are not (see warnings).
 */
export function ripgrepFailure(result: RgRunResult, what: string): ToolError | undefined {
  if (result.exitCode !== 2 || result.stopped || result.timedOut) return undefined;
  const message = result.stderr || 'ripgrep failed without a message.';
  // Per-file problems look like "rg: <path>: <error>"; a rejected query has no such path line.
  if (/os error \d+|\(os error/i.test(message) && !/regex parse error|error parsing glob/i.test(message)) {
    return undefined;
  }
  const known = INVALID_QUERY.find(([pattern]) => pattern.test(message));
  if (!known) return undefined;
  return new ToolError('INVALID_ARGUMENT', `ripgrep rejected the ${what}: ${firstLines(message)}`, {
    hint: known[1],
  });
}

/** rg's stderr as warnings: one per non-empty line, at most `max`. */
/**
 * Whether ripgrep's complaints are only about paths it met while walking (`rg: ./x: File name too long
 * (os error 36)`): it listed or searched what it could, and found nothing else wrong with the arguments.
 */
export function onlyPathErrors(stderr: string): boolean {
  const lines = warningLines(stderr, Infinity);
  return lines.length > 0 && lines.every((line) => /\(os error \d+\)$/.test(line));
}

export function warningLines(stderr: string, max = 5): string[] {
  return stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .slice(0, max);
}

function firstLines(text: string): string {
  return text.split('\n').slice(0, 6).join('\n');
}
