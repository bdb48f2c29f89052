import {
  currentCallSignal,
  ToolError,
  type AtomicWriteOptions,
  type FileAccess,
} from '@mcp-workbench/core/engine';
import type { FileHandle } from 'node:fs/promises';

/** Writes chunks in order, a batch of them per system call. */
async function writeChunks(handle: FileHandle, chunks: Uint8Array[]): Promise<void> {
  for (let i = 0; i < chunks.length; i += WRITEV_BATCH) {
    const batch = chunks.slice(i, i + WRITEV_BATCH);
    let { bytesWritten } = await handle.writev(batch);
    // A short write (libuv retries them itself, so this is only defensive): the rest one by one.
    for (const chunk of batch) {
      let at = Math.min(bytesWritten, chunk.length);
      bytesWritten -= at;
      while (at < chunk.length) at += (await handle.write(chunk, at)).bytesWritten;
    }
  }
}

/** Chunks per writev call (IOV_MAX is 1024 on Linux). */
const WRITEV_BATCH = 512;

/**
 * Writes a set of files all or nothing. Each file added goes at once to a temp file beside its target
 * (core's atomic write, through the path policy), so its data can be dropped as soon as it is on disk;
 * the temp files are renamed into place only at `commit`, once every one of them is complete and
 * flushed. A failed write, a refused path, an `abandon` or a cancelled call before that leaves none of
 * them, and no temp file. (The renames run back to back at the end; only a failing folder stops them.)
 */
export class AllOrNothingWriter {
  private readonly writes: Promise<string>[] = [];
  private complete = 0;
  private committing = false;
  private failure: Error | undefined;
  private release!: () => void;
  private refuse!: (error: unknown) => void;
  private readonly allComplete = new Promise<void>((resolve, reject) => {
    this.release = resolve;
    this.refuse = reject;
  });
  // Our own signal: a cancel before every file is complete abandons them all (their temps go at once);
  // once the renames begin, a cancel no longer stops them halfway through the set.
  private readonly abandoned = new AbortController();
  private readonly call = currentCallSignal();
  private readonly onCancel = () =>
    this.fail(new ToolError('CANCELLED', 'The request was cancelled; none of its output files was written.'));

  constructor(
    private readonly files: FileAccess,
    private readonly options: Omit<AtomicWriteOptions, 'signal'> = {},
  ) {
    this.allComplete.catch(() => undefined); // every writer awaits it; this only marks it handled
    if (this.call?.aborted) this.onCancel();
    this.call?.addEventListener('abort', this.onCancel, { once: true });
  }

  /** Starts writing `data` (text, bytes or chunks of bytes) to `file`'s temp file; it is put in place at `commit`. */
  add(file: string, data: string | Uint8Array | Uint8Array[]): void {
    let pending: string | Uint8Array | Uint8Array[] | undefined = data;
    void this.start(file, async (handle) => {
      if (Array.isArray(pending)) await writeChunks(handle, pending);
      else await handle.writeFile(pending!);
      pending = undefined; // the bytes are in the file: let them go while the others are written
    }).catch(() => undefined); // the failure is the writer's (commit throws it)
  }

  /**
   * Like `add`, with the temp file's content written by `fill` (given its open handle, e.g. to hand its
   * descriptor to a job). Resolves once `fill` has, or rejects with its error (then nothing is put in
   * place at `commit`).
   */
  addWritten(file: string, fill: (handle: FileHandle) => Promise<void>): Promise<void> {
    return this.start(file, fill);
  }

  private start(file: string, fill: (handle: FileHandle) => Promise<void>): Promise<void> {
    let filled!: () => void;
    let failed!: (error: unknown) => void;
    const written = new Promise<void>((resolve, reject) => {
      filled = resolve;
      failed = reject;
    });
    const write = this.files
      .withAtomicFile(
        file,
        async (handle) => {
          try {
            await fill(handle);
          } catch (error) {
            failed(error);
            throw error;
          }
          filled();
          await handle.sync();
          this.complete++;
          this.releaseIfDone();
          await this.allComplete;
        },
        { ...this.options, signal: this.abandoned.signal },
      )
      .catch((error: unknown) => {
        this.fail(error);
        failed(error); // the temp file was not made: fill never ran
        throw error;
      });
    write.catch(() => undefined); // awaited in commit/abandon
    this.writes.push(write);
    return written;
  }

  /** Puts every file in place once all are written; throws the first failure (then none is in place). */
  async commit(): Promise<string[]> {
    this.committing = true;
    this.releaseIfDone();
    const written = await Promise.allSettled(this.writes);
    this.call?.removeEventListener('abort', this.onCancel);
    if (this.failure !== undefined) throw this.failure;
    return written.map((r) => (r as PromiseFulfilledResult<string>).value);
  }

  /** Gives up: no file is put in place, every temp file is removed. */
  async abandon(reason: unknown): Promise<void> {
    this.fail(reason);
    await Promise.allSettled(this.writes);
    this.call?.removeEventListener('abort', this.onCancel);
  }

  private releaseIfDone(): void {
    if (!this.committing || this.failure !== undefined || this.complete < this.writes.length) return;
    this.call?.removeEventListener('abort', this.onCancel);
    this.release();
  }

  private fail(error: unknown): void {
    if (this.failure !== undefined) return;
    this.failure = error instanceof Error ? error : new Error(String(error));
    this.refuse(this.failure);
    this.abandoned.abort(this.failure);
  }
}
