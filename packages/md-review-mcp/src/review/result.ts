import path from 'node:path';
import { placeComment } from './anchors.js';
import type { FileText } from './text.js';
import type {
  FileInfo,
  FinishedRound,
  InlineCommentResult,
  ReviewResult,
  ReviewSummary,
  SessionFile,
  StoredSession,
  Verdict,
} from './types.js';

/** How the agent sees a file: relative to its working_path (as spec 004 asks). */
export function displayPath(session: Pick<StoredSession, 'working_path'>, file: string): string {
  const relative = path.relative(session.working_path, file);
  return relative === '' ? path.basename(file) : relative;
}

/** The round the session is in (or last finished). */
export function roundOf(session: Pick<StoredSession, 'round'>): number {
  return session.round ?? 1;
}

/** The round a comment was written in (comments stored before rounds were recorded are round 1's). */
export function commentRound(comment: { round?: number }): number {
  return comment.round ?? 1;
}

/** Comments written this round: what the person said about the text in front of them now. */
function thisRound<T extends { round?: number }>(session: StoredSession, comments: readonly T[]): T[] {
  const round = roundOf(session);
  return comments.filter((c) => commentRound(c) === round);
}

/**
 * Spec 004: approved = no comments at all; an overall comment is a comment too (audit defect 3). From the
 * second round on, the verdict is this round's: comments kept from earlier rounds were answered then.
 */
export function verdictOf(session: StoredSession): Verdict {
  if (session.status === 'cancelled') return 'cancelled';
  const comments =
    thisRound(session, session.inline_comments).length + thisRound(session, session.global_comments).length;
  return comments === 0 && !session.overall_comment?.trim() ? 'approved' : 'commented';
}

export function summaryOf(session: StoredSession): ReviewSummary {
  const inline = thisRound(session, session.inline_comments).length;
  const global = thisRound(session, session.global_comments).length;
  const all = session.inline_comments.length + session.global_comments.length;
  return {
    ...(session.overall_comment ? { overall_comment: session.overall_comment } : {}),
    comment_count: inline + global,
    inline_comment_count: inline,
    global_comment_count: global,
    ...(roundOf(session) > 1 ? { earlier_comment_count: all - inline - global } : {}),
  };
}

/** The round the person just finished, as the session keeps it once the next one opens. */
export function finishedRound(session: StoredSession): FinishedRound {
  return {
    round: roundOf(session),
    verdict: verdictOf(session),
    ...(session.overall_comment ? { overall_comment: session.overall_comment } : {}),
    ...(session.finalizedAt ? { finalized_at: session.finalizedAt } : {}),
  };
}

/**
 * The round before this one, short: its answer may have gone to a call the agent never read (a client
 * that gave up), and the next round's answer must not lose that verdict.
 */
export function previousRound(session: StoredSession): ReviewResult['previous_round'] {
  const before = session.rounds?.findLast((r) => r.round === roundOf(session) - 1);
  if (!before) return undefined;
  const { finalized_at: _finalizedAt, ...short } = before;
  return short;
}

/**
 * The answer spec 004 describes, built from the session and the files as they are now: comments
 * sorted by file and line, each checked against the current text (`stale`, or `moved` with its new `range`).
 * `current[i]` is file i's text now, or undefined when it can no longer be read.
 */
export function buildResult(
  session: StoredSession,
  current: ReadonlyArray<FileText | undefined>,
): ReviewResult {
  const inline: InlineCommentResult[] = [...session.inline_comments]
    .sort(
      (a, b) =>
        a.fileIndex - b.fileIndex ||
        a.range.startLine - b.range.startLine ||
        a.createdAt.localeCompare(b.createdAt),
    )
    .map((comment) => {
      const text = current[comment.fileIndex];
      const file = session.files[comment.fileIndex]!;
      const base: InlineCommentResult = {
        id: comment.id,
        file: displayPath(session, file.path),
        range: comment.range,
        comment: comment.comment,
        severity: comment.severity,
        createdAt: comment.createdAt,
        anchor: comment.anchor,
        round: commentRound(comment),
      };
      if (text && text.hash === comment.anchor.fileContentHash) return base;
      const placed = text
        ? placeComment(text.lines, comment.range, comment.anchor)
        : { state: 'lost' as const, range: comment.range };
      if (placed.state === 'current') return base;
      // Moved lines are the same text, so the comment still holds: only edited lines make it stale.
      if (placed.state === 'moved')
        return { ...base, range: placed.range, moved: true, original_range: comment.range };
      return { ...base, stale: true };
    });
  const files = session.files.map((file, i) => fileInfo(session, file, current[i]));
  const previous = previousRound(session);
  const warnings = files.flatMap((info) => warningOf(info));
  return {
    resume_key: session.resume_key,
    title: session.title,
    round: roundOf(session),
    verdict: verdictOf(session),
    summary: summaryOf(session),
    ...(previous ? { previous_round: previous } : {}),
    inline_comments: inline,
    global_comments: session.global_comments.map((c) => ({
      id: c.id,
      comment: c.comment,
      createdAt: c.createdAt,
      round: commentRound(c),
    })),
    meta: {
      startedAt: session.startedAt,
      finalizedAt: session.finalizedAt ?? new Date().toISOString(),
      root: session.root,
      ...(session.instructions ? { instructions: session.instructions } : {}),
      reviewed_files: [...session.reviewed]
        .sort((a, b) => a - b)
        .map((i) => displayPath(session, session.files[i]!.path)),
      files,
    },
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

/** A finished round's result answered a second time: the agent is told it is not a new round. */
export function repeated(result: ReviewResult): ReviewResult {
  const { resume_key, title, round, verdict, ...rest } = result;
  return {
    // Said before the comments, so a reader knows at once that it has seen them.
    resume_key,
    title,
    round,
    verdict,
    repeated: true,
    message:
      `This is round ${round}'s result again: it was answered before (a retry, or no file was edited since). ` +
      `Edit the files and call again for another round, or pass after_round: ${round} to ask the person to ` +
      'look again.',
    ...rest,
  };
}

/**
 * A file as it is now next to the version the person reviewed: a verdict certifies only what they saw,
 * so a file rewritten (or removed) after that is flagged rather than silently reported with its new hash.
 */
function fileInfo(session: StoredSession, file: SessionFile, now: FileText | undefined): FileInfo {
  const reviewed = file.finishedHash;
  return {
    file: displayPath(session, file.path),
    fileContentHash: now?.hash ?? '',
    lineCount: now?.lines.length ?? 0,
    ...(file.baseHash === undefined ? {} : { changed: now?.hash !== file.baseHash }),
    ...(reviewed === undefined ? {} : { reviewedContentHash: reviewed }),
    ...(reviewed !== undefined && now?.hash !== reviewed ? { changed_since_review: true } : {}),
    ...(now === undefined ? { missing: true } : {}),
  };
}

function warningOf(info: FileInfo): string[] {
  if (info.missing)
    return [
      `${info.file} can no longer be read (deleted, renamed or moved out of reach after the person reviewed it).`,
    ];
  if (info.changed_since_review)
    return [
      `${info.file} changed after the person reviewed it: the verdict is about the version with hash ` +
        `${info.reviewedContentHash}, not the file as it is now. Call review_request again to have the change reviewed.`,
    ];
  return [];
}
