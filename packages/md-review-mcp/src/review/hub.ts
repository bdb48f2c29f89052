import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { ToolError } from '@mcp-workbench/core/engine';
import { makeAnchor, placeComment, type Placement } from './anchors.js';
import { LIMITS } from './limits.js';
import type { SessionOwnership } from './ownership.js';
import {
  buildResult,
  displayPath,
  finishedRound,
  previousRound,
  repeated,
  roundOf,
  summaryOf,
  verdictOf,
} from './result.js';
import { listedOf, StoredSessionIndex, type ListedSession } from './session-index.js';
import type { SessionStore } from './store.js';
import { fileText, type FileText } from './text.js';
import {
  SEVERITIES,
  type GlobalComment,
  type ReviewResult,
  type ReviewSummary,
  type Severity,
  type SessionStatus,
  type StoredInlineComment,
  type StoredSession,
  type Verdict,
} from './types.js';

/** Reads a reviewed file's bytes; the server checks every read against its path policy. */
export type ReadFileBytes = (file: string) => Promise<Uint8Array>;

/** What an agent asks to review (paths already canonical and checked). */
export interface SessionSpec {
  resume_key: string;
  title: string;
  root: string;
  working_path: string;
  instructions?: string;
  files: string[];
  /**
   * Open the round after this one, but only while it is the latest: a retry of the same call (its first
   * answer lost) then gets the round it opened instead of opening yet another.
   */
  afterRound?: number;
}

export type WaitOutcome =
  { kind: 'done'; result: ReviewResult } | { kind: 'pending' } | { kind: 'taken-over' };

export interface WaitOptions {
  signal: AbortSignal;
  /** Aborted when the client is gone (stdin closed): the wait answers pending at once. */
  stop?: AbortSignal;
  /** 0 = no limit. */
  timeoutMs: number;
  tickMs: number;
  /** Called right away and then every `tickMs` while waiting. */
  onTick?: (elapsedMs: number) => void;
}

interface Waiter {
  settle(outcome: WaitOutcome): void;
}

interface LiveSession {
  data: StoredSession;
  /** The page's secret for this server process: never stored, never logged. */
  token: string;
  /** Bumped at every change, so the page knows when to refresh. */
  revision: number;
  waiter: Waiter | undefined;
  /** When the page last asked for the session (ms since epoch; 0 = never). */
  lastSeen: number;
  /** Edits of one session run one after another, so saves never overtake each other. */
  queue: Promise<unknown>;
  /** Set once the finished review was handed to the agent: lets the session go when its page is quiet. */
  releaseTimer?: NodeJS.Timeout;
}

export interface ReviewHubOptions {
  /**
   * A finished review handed to the agent is let go of (its memory and its lock) once its page has not
   * asked for it for this long (default 30 s; an open page asks every 2.5 s).
   */
  releaseIdleMs?: number;
}

/** The session as the page sees it. */
export interface SessionView {
  resume_key: string;
  title: string;
  instructions?: string;
  status: SessionStatus;
  verdict?: Verdict;
  startedAt: string;
  finalizedAt?: string;
  revision: number;
  /** 1, then one more per round the agent asked for. */
  round: number;
  /** An agent is waiting for the result right now. */
  waiting: boolean;
  files: Array<{ index: number; file: string; reviewed: boolean }>;
  inline_comments: Array<StoredInlineComment & { file: string }>;
  global_comments: GlobalComment[];
  overall_comment?: string;
  summary: ReviewSummary;
}

export interface FileView {
  index: number;
  file: string;
  text: string;
  fileContentHash: string;
  lineCount: number;
  /** Another round: the text reviewed last round, when the file changed since. */
  previous?: string;
  /** Where each comment on this file is now (current, moved, or lost = its lines changed: stale). */
  placements: Array<{ id: string } & Placement>;
}

export interface SessionListing extends ListedSession {
  waiting: boolean;
  /** True when this server process serves the session's page (its URL is then known). */
  live: boolean;
}

export interface InlineInput {
  fileIndex: number;
  startLine: number;
  endLine: number;
  comment: string;
  severity: Severity;
  /** The hash of the text the person saw; a mismatch means the file changed under the page. */
  fileContentHash?: string;
}

/** A file as the page showed it to the person: its index and the hash of the text on screen. */
export interface SeenFile {
  fileIndex: number;
  fileContentHash: string;
}

const now = () => new Date().toISOString();

/** How many let-go sessions keep their page's key (see `released`). */
const MAX_RELEASED_LINKS = 10_000;

/**
 * The live state of every review this server process holds: loads and saves sessions, applies the
 * person's edits, and hands the finished review to the agent's waiting call. Knows nothing of MCP or
 * HTTP; the tools and the web server both drive it.
 */
export class ReviewHub {
  private readonly live = new Map<string, LiveSession>();
  /** Sessions being loaded (and locked), so two calls for one key load it once. */
  private readonly loading = new Map<string, Promise<LiveSession>>();
  /** Sessions handed over to another server process: their old page's key, to tell it where they went. */
  private readonly moved = new Map<string, string>();
  /**
   * Finished sessions this process let go of: their page's key, so a page still open (a tab in the
   * background) and the next round keep the person's link.
   */
  private readonly released = new Map<string, string>();
  private readonly index: StoredSessionIndex;
  private readonly releaseIdleMs: number;

  constructor(
    private readonly store: SessionStore,
    private readonly readBytes: ReadFileBytes,
    private readonly ownership: SessionOwnership,
    options: ReviewHubOptions = {},
  ) {
    this.index = new StoredSessionIndex(store);
    this.releaseIdleMs = options.releaseIdleMs ?? 30_000;
  }

  // ---- the agent's side -------------------------------------------------------------------------

  /**
   * Opens (or restores) the session of `spec.resume_key`. A finished review not yet handed to an agent
   * is returned as `done`. One already handed over is reopened for another round (the same comments plus
   * new ones) when its files changed since the person finished or the agent asks for the round after it;
   * otherwise the call is a retry (the answer may never have reached the agent) and gets the same
   * result again, marked `repeated`.
   */
  async prepare(
    spec: SessionSpec,
    /** Set when some of `spec.files` cannot be read: only a finished, undelivered review goes on. */
    unreadable?: () => Error,
  ): Promise<{ kind: 'open'; token: string } | { kind: 'done'; result: ReviewResult }> {
    if (!this.live.has(spec.resume_key)) {
      // A call for other files must not take the session from the process that serves it.
      const stored = await this.store.load(spec.resume_key);
      if (unreadable && !(stored && (await this.answerable(stored, spec)))) throw unreadable();
      if (stored && !sameReview(stored, spec)) throw alreadyExists(stored, spec.resume_key);
    }
    const live = await this.get(spec.resume_key, spec);
    return this.serialize(live, async () => {
      const data = live.data;
      if (unreadable && !(await this.answerable(data, spec))) throw unreadable();
      if (!sameReview(data, spec)) throw alreadyExists(data, spec.resume_key);
      data.title = spec.title;
      data.root = spec.root;
      data.working_path = spec.working_path;
      if (spec.instructions === undefined) delete data.instructions;
      else data.instructions = spec.instructions;
      if (data.status !== 'open') {
        if (awaitsDelivery(data)) {
          data.delivered = true;
          await this.commit(live);
          this.releaseWhenQuiet(live);
          return { kind: 'done' as const, result: await this.result(data) };
        }
        if (await this.isRetry(data, spec)) {
          await this.commit(live);
          this.releaseWhenQuiet(live);
          return { kind: 'done' as const, result: repeated(await this.result(data)) };
        }
        await this.openNextRound(data);
      }
      await this.commit(live);
      return { kind: 'open' as const, token: live.token };
    });
  }

  /** Another round: what the person finished last round is what this round compares against. */
  private async openNextRound(data: StoredSession): Promise<void> {
    data.rounds = [...(data.rounds ?? []), finishedRound(data)];
    data.status = 'open';
    data.delivered = false;
    delete data.finalizedAt;
    delete data.overall_comment; // the last round's, kept in `rounds`
    data.round = (data.round ?? 1) + 1;
    for (const file of data.files) {
      if (file.finishedHash === undefined) delete file.baseHash;
      else file.baseHash = file.finishedHash;
    }
    await this.store.promoteSnapshot(data.resume_key);
  }

  /**
   * Waits until the person finalizes or cancels, the time is up, the call is aborted (rejects with
   * CANCELLED), or another call for the same session takes the wait over.
   */
  wait(key: string, options: WaitOptions): Promise<WaitOutcome> {
    const live = this.mustLive(key);
    return new Promise<WaitOutcome>((resolve, reject) => {
      const started = Date.now();
      let timeout: NodeJS.Timeout | undefined;
      let ticker: NodeJS.Timeout | undefined;
      const cleanup = () => {
        clearTimeout(timeout);
        clearInterval(ticker);
        options.signal.removeEventListener('abort', onAbort);
        options.stop?.removeEventListener('abort', onStop);
        if (live.waiter === waiter) live.waiter = undefined;
      };
      const waiter: Waiter = {
        settle: (outcome) => {
          cleanup();
          resolve(outcome);
        },
      };
      const onAbort = () => {
        cleanup();
        reject(
          new ToolError('CANCELLED', 'The request was cancelled; the review stays open.', {
            hint: 'Call review_request again with the same resume_key to keep waiting.',
          }),
        );
      };
      const onStop = () => waiter.settle({ kind: 'pending' });
      if (options.signal.aborted) return onAbort();
      live.waiter?.settle({ kind: 'taken-over' });
      live.waiter = waiter;
      if (options.stop?.aborted) return onStop();
      options.signal.addEventListener('abort', onAbort, { once: true });
      options.stop?.addEventListener('abort', onStop, { once: true });
      if (options.timeoutMs > 0)
        timeout = setTimeout(() => waiter.settle({ kind: 'pending' }), options.timeoutMs);
      if (options.onTick) {
        const tick = options.onTick;
        tick(0);
        ticker = setInterval(() => tick(Date.now() - started), options.tickMs);
      }
    });
  }

  summary(key: string): ReviewSummary {
    return summaryOf(this.mustLive(key).data);
  }

  round(key: string): number {
    return roundOf(this.mustLive(key).data);
  }

  /** The round before the current one (its verdict, overall comment), when there is one recorded. */
  previousRound(key: string): ReviewResult['previous_round'] {
    return previousRound(this.mustLive(key).data);
  }

  /** True when the page asked for the session within the last `withinMs`. */
  pageSeen(key: string, withinMs: number): boolean {
    const live = this.live.get(key);
    return live !== undefined && Date.now() - live.lastSeen <= withinMs;
  }

  async list(): Promise<SessionListing[]> {
    // What this process holds is never older than its file (an edit may be being saved): not read. Taken
    // before reading, so a session let go of meanwhile is still listed.
    const held = new Map(this.live);
    const stored = await this.index.list((key) => held.has(key));
    const byKey = new Map(stored.map((s) => [s.resume_key, s]));
    for (const [key, live] of held) byKey.set(key, listedOf(live.data));
    return [...byKey.values()]
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))
      .map((listed) => {
        const live = this.live.get(listed.resume_key);
        return { ...listed, waiting: live?.waiter !== undefined, live: live !== undefined };
      });
  }

  isLive(key: string): boolean {
    return this.live.has(key);
  }

  /**
   * Another server process asks for the session (the same resume_key from another client): what the
   * person did so far is saved (edits run in order, this one after them), a call waiting here answers
   * "taken over", and the lock is let go so the other process loads the session from the store.
   */
  async handOver(key: string): Promise<void> {
    const live = this.mustLive(key);
    await this.serialize(live, async () => {
      if (this.live.get(key) !== live) return;
      this.forget(live);
      live.waiter?.settle({ kind: 'taken-over' });
    });
  }

  /** True when `token` was the page key of a session this process handed to another one. */
  movedAway(key: string, token: string): boolean {
    const old = this.moved.get(key);
    return old !== undefined && sameSecret(old, token);
  }

  /** Lets every session go (the server is closing): their locks are removed. */
  close(): void {
    for (const live of this.live.values()) clearTimeout(live.releaseTimer);
    this.ownership.releaseAll();
  }

  /**
   * A page asks for a session this process let go of (finished, handed to the agent, its page quiet for a
   * while, e.g. a tab in the background): with the key that page had, the session is loaded again —
   * unless another process serves it now; its page is then told the review moved.
   */
  async revive(key: string, token: string): Promise<void> {
    const known = this.released.get(key);
    if (known === undefined || !sameSecret(known, token) || this.live.has(key)) return;
    try {
      await this.get(key);
    } catch (error) {
      // Its file is gone or damaged: the page is refused as any unknown link is.
      if (!(error instanceof ToolError && error.code === 'CONFLICT')) return;
      this.released.delete(key);
      this.moved.set(key, token);
    }
  }

  tokenOf(key: string): string {
    return this.mustLive(key).token;
  }

  // ---- the person's side (the page's API) --------------------------------------------------------

  /** Constant-time check of a page's token. */
  checkToken(key: string, token: string): boolean {
    const live = this.live.get(key);
    return live !== undefined && sameSecret(live.token, token);
  }

  view(key: string): SessionView {
    const live = this.mustLive(key);
    live.lastSeen = Date.now();
    const data = live.data;
    return {
      resume_key: data.resume_key,
      title: data.title,
      ...(data.instructions ? { instructions: data.instructions } : {}),
      status: data.status,
      ...(data.status === 'open' ? {} : { verdict: verdictOf(data) }),
      startedAt: data.startedAt,
      ...(data.finalizedAt ? { finalizedAt: data.finalizedAt } : {}),
      revision: live.revision,
      round: data.round ?? 1,
      waiting: live.waiter !== undefined,
      files: data.files.map((f, index) => ({
        index,
        file: displayPath(data, f.path),
        reviewed: data.reviewed.includes(index),
      })),
      inline_comments: data.inline_comments.map((c) => ({
        ...c,
        file: displayPath(data, data.files[c.fileIndex]!.path),
      })),
      global_comments: data.global_comments,
      ...(data.overall_comment ? { overall_comment: data.overall_comment } : {}),
      summary: summaryOf(data),
    };
  }

  async file(key: string, index: number): Promise<FileView> {
    const live = this.mustLive(key);
    const data = live.data;
    const text = await this.readFile(data, index);
    const entry = data.files[index]!;
    const base =
      entry.baseHash !== undefined && entry.baseHash !== text.hash
        ? (await this.store.loadSnapshot(key, 'base'))?.[index]
        : undefined;
    return {
      index,
      file: displayPath(data, entry.path),
      text: text.text,
      fileContentHash: text.hash,
      lineCount: text.lines.length,
      ...(base && base.hash === entry.baseHash ? { previous: base.text } : {}),
      placements: data.inline_comments
        .filter((c) => c.fileIndex === index)
        .map((c) => {
          const placed =
            c.anchor.fileContentHash === text.hash
              ? { state: 'current' as const, range: c.range }
              : placeComment(text.lines, c.range, c.anchor);
          return { id: c.id, ...placed };
        }),
    };
  }

  addInline(key: string, input: InlineInput): Promise<StoredInlineComment> {
    return this.edit(key, async (data) => {
      const text = await this.readFile(data, input.fileIndex);
      if (input.fileContentHash !== undefined && input.fileContentHash !== text.hash) {
        throw new ToolError('CONFLICT', 'The file changed since the page loaded it.', {
          hint: 'Reload the file and select the lines again.',
        });
      }
      checkRange(input.startLine, input.endLine, text.lines.length);
      this.checkRoom(data);
      const range = { startLine: input.startLine, endLine: input.endLine };
      const comment: StoredInlineComment = {
        id: randomUUID(),
        fileIndex: input.fileIndex,
        range,
        comment: checkComment(input.comment),
        severity: checkSeverity(input.severity),
        createdAt: now(),
        anchor: makeAnchor(text.lines, range, text.hash),
        round: roundOf(data),
      };
      data.inline_comments.push(comment);
      return comment;
    });
  }

  updateInline(
    key: string,
    id: string,
    patch: { comment?: string; severity?: Severity },
  ): Promise<StoredInlineComment> {
    return this.edit(key, async (data) => {
      const comment = data.inline_comments.find((c) => c.id === id);
      if (!comment) throw notFound('comment', id);
      const before = `${comment.severity}\n${comment.comment}`;
      if (patch.comment !== undefined) comment.comment = checkComment(patch.comment);
      if (patch.severity !== undefined) comment.severity = checkSeverity(patch.severity);
      if (`${comment.severity}\n${comment.comment}` !== before) editedNow(data, comment);
      return comment;
    });
  }

  deleteInline(key: string, id: string): Promise<void> {
    return this.edit(key, async (data) => {
      const at = data.inline_comments.findIndex((c) => c.id === id);
      if (at < 0) throw notFound('comment', id);
      data.inline_comments.splice(at, 1);
    });
  }

  addGlobal(key: string, text: string): Promise<GlobalComment> {
    return this.edit(key, async (data) => {
      this.checkRoom(data);
      const comment: GlobalComment = {
        id: randomUUID(),
        comment: checkComment(text),
        createdAt: now(),
        round: roundOf(data),
      };
      data.global_comments.push(comment);
      return comment;
    });
  }

  updateGlobal(key: string, id: string, text: string): Promise<GlobalComment> {
    return this.edit(key, async (data) => {
      const comment = data.global_comments.find((c) => c.id === id);
      if (!comment) throw notFound('global comment', id);
      const before = comment.comment;
      comment.comment = checkComment(text);
      if (comment.comment !== before) editedNow(data, comment);
      return comment;
    });
  }

  deleteGlobal(key: string, id: string): Promise<void> {
    return this.edit(key, async (data) => {
      const at = data.global_comments.findIndex((c) => c.id === id);
      if (at < 0) throw notFound('global comment', id);
      data.global_comments.splice(at, 1);
    });
  }

  setOverall(key: string, text: string): Promise<void> {
    return this.edit(key, async (data) => {
      const trimmed = text.trim();
      if (trimmed === '') delete data.overall_comment;
      else data.overall_comment = checkComment(text, true);
    });
  }

  setReviewed(key: string, index: number, reviewed: boolean): Promise<void> {
    return this.edit(key, async (data) => {
      checkFileIndex(data, index);
      const others = data.reviewed.filter((i) => i !== index);
      data.reviewed = reviewed ? [...others, index].sort((a, b) => a - b) : others;
    });
  }

  /**
   * The person is done: the verdict follows from the comments (approved when there are none). `seen` is
   * the hash of each file as the page showed it: a file rewritten since is refused (CONFLICT), so a
   * verdict never certifies a text the person did not have on screen.
   */
  finalize(key: string, overall?: string, seen?: ReadonlyArray<SeenFile>): Promise<void> {
    return this.finish(key, 'finalized', overall, seen);
  }

  /** The hash of file `index` on disk now: the page compares it with what it shows. */
  async fileHash(key: string, index: number): Promise<{ index: number; fileContentHash: string }> {
    const text = await this.readFile(this.mustLive(key).data, index);
    return { index, fileContentHash: text.hash };
  }

  cancel(key: string): Promise<void> {
    return this.finish(key, 'cancelled');
  }

  // ---- internals ----------------------------------------------------------------------------------

  private async finish(
    key: string,
    status: 'finalized' | 'cancelled',
    overall?: string,
    seen: ReadonlyArray<SeenFile> = [],
  ): Promise<void> {
    const live = this.mustLive(key);
    let waiter: Waiter | undefined;
    await this.edit(key, async (data) => {
      // The files as the person finished them: the next round shows what changed since.
      const texts = await Promise.all(
        data.files.map((_, i) => this.readFile(data, i).catch(() => undefined)),
      );
      for (const s of seen) checkFileIndex(data, s.fileIndex);
      const rewritten = seen.filter((s) => texts[s.fileIndex]?.hash !== s.fileContentHash);
      if (rewritten.length > 0) {
        const names = rewritten.map((s) => displayPath(data, data.files[s.fileIndex]!.path));
        throw new ToolError(
          'CONFLICT',
          `File changed on disk since the page loaded it: ${names.join(', ')}. Nothing was finalized.`,
          {
            hint: 'Reload the file, check the new text, then finalize again.',
            details: { files: rewritten.map((s) => s.fileIndex) },
          },
        );
      }
      await this.store.saveSnapshot(
        key,
        'finished',
        texts.map((text) => (text ? { hash: text.hash, text: text.text } : null)),
      );
      data.files.forEach((file, i) => {
        const hash = texts[i]?.hash;
        if (hash === undefined) delete file.finishedHash;
        else file.finishedHash = hash;
      });
      if (overall !== undefined) {
        if (overall.trim() === '') delete data.overall_comment;
        else data.overall_comment = checkComment(overall, true);
      }
      data.status = status;
      data.finalizedAt = now();
      waiter = live.waiter;
      data.delivered = waiter !== undefined;
    });
    if (waiter) {
      waiter.settle({ kind: 'done', result: await this.result(live.data) });
      this.releaseWhenQuiet(live);
    }
  }

  /**
   * No file was edited since the person finished the last round: each is the text they finished, or gone
   * (a deleted file is not an edit to review; the repeated answer says it is missing).
   */
  private async unchangedSinceFinished(data: StoredSession): Promise<boolean> {
    const texts = await Promise.all(data.files.map((_, i) => this.readFile(data, i).catch(() => undefined)));
    return data.files.every(
      (file, i) =>
        texts[i] === undefined || (file.finishedHash !== undefined && texts[i].hash === file.finishedHash),
    );
  }

  /**
   * This request can be answered with the stored, finished review although some files cannot be read:
   * it was not handed to an agent yet, or it was and this is a retry (nothing edited since).
   */
  private async answerable(data: StoredSession, spec: SessionSpec): Promise<boolean> {
    if (!sameReview(data, spec) || data.status === 'open') return false;
    return !data.delivered || (await this.isRetry(data, spec));
  }

  /**
   * A call after a finished round was handed over asks for that round again (its answer may have been
   * lost), not for another: it names an earlier round than the latest, or it names none and nothing was
   * edited since.
   */
  private async isRetry(data: StoredSession, spec: SessionSpec): Promise<boolean> {
    if (spec.afterRound !== undefined) return spec.afterRound !== roundOf(data);
    return this.unchangedSinceFinished(data);
  }

  private async result(data: StoredSession): Promise<ReviewResult> {
    const current = await Promise.all(
      data.files.map((_, i) => this.readFile(data, i).catch(() => undefined)),
    );
    return buildResult(data, current);
  }

  private async readFile(data: StoredSession, index: number): Promise<FileText> {
    checkFileIndex(data, index);
    const bytes = await this.readBytes(data.files[index]!.path);
    return fileText(bytes);
  }

  private checkRoom(data: StoredSession) {
    if (data.inline_comments.length + data.global_comments.length >= LIMITS.maxComments) {
      throw new ToolError('LIMIT_EXCEEDED', `A review holds at most ${LIMITS.maxComments} comments.`, {
        hint: 'Finalize this review and start another for the rest.',
      });
    }
  }

  /** Applies one edit of the person's to an open session, saves it, and bumps the revision. */
  private edit<T>(key: string, change: (data: StoredSession) => Promise<T>): Promise<T> {
    const live = this.mustLive(key);
    return this.serialize(live, async () => {
      if (live.data.status !== 'open') {
        throw new ToolError('CONFLICT', `The review is ${live.data.status}; it can no longer be changed.`, {
          hint: 'The agent reopens it by calling review_request again with the same resume_key.',
        });
      }
      // Change a copy: a failed save leaves the session as it was.
      const draft = structuredClone(live.data);
      const value = await change(draft);
      const previous = live.data;
      live.data = draft;
      try {
        await this.commit(live);
      } catch (error) {
        live.data = previous;
        throw error;
      }
      return value;
    });
  }

  private async commit(live: LiveSession) {
    if (!(await this.ownership.verify(live.data.resume_key))) {
      this.forget(live);
      throw new ToolError(
        'CONFLICT',
        'This review moved to another md-review window; this change was not saved.',
        {
          hint: 'Open the newest link md-review gave you (`npx md-review-mcp link` prints it).',
        },
      );
    }
    live.data.updatedAt = now();
    await this.store.save(live.data);
    live.revision++;
  }

  private serialize<T>(live: LiveSession, task: () => Promise<T>): Promise<T> {
    const run = live.queue.then(task, task);
    live.queue = run.catch(() => undefined);
    return run;
  }

  /** Without `spec` (a page reviving its session), only a stored session is loaded, and not taken from a live owner. */
  private get(key: string, spec?: SessionSpec): Promise<LiveSession> {
    const existing = this.live.get(key);
    if (existing) return Promise.resolve(existing);
    let loading = this.loading.get(key);
    if (!loading) {
      loading = this.load(key, spec).finally(() => this.loading.delete(key));
      this.loading.set(key, loading);
    }
    return loading;
  }

  /** Takes the session's lock (from another process if need be), then reads what is stored. */
  private async load(key: string, spec?: SessionSpec): Promise<LiveSession> {
    // A session let go of keeps its page's key: the person's link stays valid.
    const token = this.released.get(key) ?? randomBytes(32).toString('base64url');
    await this.ownership.acquire(key, token, { takeOver: spec !== undefined });
    let data: StoredSession | undefined;
    try {
      data = (await this.store.load(key)) ?? (spec && newSession(key, spec));
      if (!data) throw notFound('review', key); // a page reviving a session whose file is gone
    } catch (error) {
      this.ownership.release(key);
      throw error;
    }
    const live: LiveSession = {
      data,
      token,
      revision: 0,
      waiter: undefined,
      lastSeen: 0,
      queue: Promise.resolve(),
    };
    this.live.set(key, live);
    this.moved.delete(key);
    this.released.delete(key);
    if (data.status !== 'open' && data.delivered) this.releaseWhenQuiet(live);
    return live;
  }

  /**
   * Once a finished review was handed to the agent, the session is let go of (its memory, its lock)
   * when its page has been quiet for `releaseIdleMs`: a process serving many reviews would otherwise
   * hold every one of them until it exits. A later call loads it from the store again.
   */
  private releaseWhenQuiet(live: LiveSession): void {
    clearTimeout(live.releaseTimer);
    const check = () => {
      if (this.live.get(live.data.resume_key) !== live) return;
      const data = live.data;
      if (data.status === 'open' || !data.delivered || live.waiter) return; // another round began
      const quietFor = Date.now() - live.lastSeen;
      if (quietFor < this.releaseIdleMs) {
        live.releaseTimer = setTimeout(check, this.releaseIdleMs - quietFor).unref();
        return;
      }
      void this.serialize(live, async () => {
        if (this.live.get(data.resume_key) !== live || live.data.status === 'open' || live.waiter) return;
        this.live.delete(data.resume_key);
        this.index.remember(live.data); // saved by this process, under its lock: the file says the same
        this.released.set(data.resume_key, live.token);
        // ~150 bytes each; past the cap the oldest links are forgotten (their pages then say so).
        if (this.released.size > MAX_RELEASED_LINKS) this.released.delete(this.released.keys().next().value!);
        this.ownership.release(data.resume_key);
      });
    };
    live.releaseTimer = setTimeout(check, this.releaseIdleMs).unref();
  }

  /** This process no longer serves the session: its page is told it moved, its lock is let go. */
  private forget(live: LiveSession): void {
    const key = live.data.resume_key;
    if (this.live.get(key) === live) this.live.delete(key);
    this.moved.set(key, live.token);
    this.ownership.release(key);
  }

  private mustLive(key: string): LiveSession {
    const live = this.live.get(key);
    if (!live) throw notFound('review', key);
    return live;
  }
}

/** The first round of a review nobody asked for before. */
function newSession(key: string, spec: SessionSpec): StoredSession {
  return {
    version: 1,
    resume_key: key,
    title: spec.title,
    root: spec.root,
    working_path: spec.working_path,
    ...(spec.instructions === undefined ? {} : { instructions: spec.instructions }),
    files: spec.files.map((file) => ({ path: file })),
    status: 'open',
    startedAt: now(),
    delivered: false,
    reviewed: [],
    inline_comments: [],
    global_comments: [],
    updatedAt: now(),
  };
}

/**
 * A comment the person rewrote is what they say now: it moves to this round, so a kept comment edited
 * in round 2 counts for round 2's verdict (the page and the answer then agree).
 */
function editedNow(data: StoredSession, comment: { updatedAt?: string; round?: number }): void {
  comment.updatedAt = now();
  comment.round = roundOf(data);
}

/** Finished by the person and not yet handed to an agent. */
function awaitsDelivery(data: StoredSession): boolean {
  return data.status !== 'open' && !data.delivered;
}

function sameSecret(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

function alreadyExists(data: StoredSession, key: string): ToolError {
  return new ToolError(
    'ALREADY_EXISTS',
    `Session already exists: resume_key ${key} is a review of other files.`,
    {
      hint: `It reviews ${data.files.length} file(s) under ${data.root}. Call session_new_id for a new key, or pass the same files to resume it.`,
      details: { root: data.root, files: data.files.map((f) => displayPath(data, f.path)) },
    },
  );
}

/**
 * The same files, by their canonical paths: `root` only says how the agent names them, so the same file
 * given under another root (`R/docs` + `notes.md` for `R` + `docs/notes.md`) is the same review.
 */
function sameReview(data: StoredSession, spec: SessionSpec): boolean {
  const stored = data.files.map((f) => f.path).sort();
  const asked = [...new Set(spec.files)].sort();
  return stored.length === asked.length && stored.every((p, i) => p === asked[i]);
}

function notFound(what: string, id: string) {
  return new ToolError('NOT_FOUND', `No ${what} ${id} in this review.`, { hint: 'Reload the page.' });
}

function checkFileIndex(data: StoredSession, index: number) {
  if (!Number.isInteger(index) || index < 0 || index >= data.files.length) {
    throw new ToolError('NOT_FOUND', `This review has no file #${index}.`, { hint: 'Reload the page.' });
  }
}

function checkRange(start: number, end: number, lineCount: number) {
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 1 || end < start || end > lineCount) {
    throw new ToolError(
      'INVALID_ARGUMENT',
      `Lines ${start}–${end} are not a range of this file (1–${lineCount}).`,
      {
        hint: 'Select the lines again.',
      },
    );
  }
}

function checkComment(text: string, allowEmpty = false): string {
  if (typeof text !== 'string' || (!allowEmpty && text.trim() === '')) {
    throw new ToolError('INVALID_ARGUMENT', 'A comment needs some text.', {
      hint: 'Write the comment, then save it.',
    });
  }
  if (text.length > LIMITS.maxCommentChars) {
    throw new ToolError('LIMIT_EXCEEDED', `A comment has at most ${LIMITS.maxCommentChars} characters.`, {
      hint: 'Shorten it or split it into several comments.',
    });
  }
  return text;
}

function checkSeverity(value: string): Severity {
  if (!(SEVERITIES as readonly string[]).includes(value)) {
    throw new ToolError('INVALID_ARGUMENT', `Unknown severity ${JSON.stringify(value)}.`, {
      hint: `Use one of ${SEVERITIES.join(', ')}.`,
    });
  }
  return value as Severity;
}
