import path from 'node:path';
import { placeComment } from './anchors.js';
import type { FileText } from './text.js';
import type { InlineCommentResult, ReviewResult, ReviewSummary, StoredSession, Verdict } from './types.js';

/** How the agent sees a file: relative to its working_path (as spec 004 asks). */
export function displayPath(session: Pick<StoredSession, 'working_path'>, file: string): string {
  const relative = path.relative(session.working_path, file);
  return relative === '' ? path.basename(file) : relative;
}

export function verdictOf(session: StoredSession): Verdict {
  if (session.status === 'cancelled') return 'cancelled';
  return session.inline_comments.length + session.global_comments.length === 0 ? 'approved' : 'commented';
}

export function summaryOf(session: StoredSession): ReviewSummary {
  const inline = session.inline_comments.length;
  const global = session.global_comments.length;
  return {
    ...(session.overall_comment ? { overall_comment: session.overall_comment } : {}),
    comment_count: inline + global,
    inline_comment_count: inline,
    global_comment_count: global,
  };
}

/**
 * The answer spec 004 describes, built from the session and the files as they are now: comments
 * sorted by file and line, each checked against the current text (`stale`, moved `range`).
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
      };
      if (text && text.hash === comment.anchor.fileContentHash) return base;
      const placed = text
        ? placeComment(text.lines, comment.range, comment.anchor)
        : { state: 'lost' as const, range: comment.range };
      if (placed.state === 'current') return base;
      if (placed.state === 'moved')
        return { ...base, range: placed.range, stale: true, original_range: comment.range };
      return { ...base, stale: true };
    });
  return {
    resume_key: session.resume_key,
    title: session.title,
    verdict: verdictOf(session),
    summary: summaryOf(session),
    inline_comments: inline,
    global_comments: session.global_comments.map(({ id, comment, createdAt }) => ({
      id,
      comment,
      createdAt,
    })),
    meta: {
      startedAt: session.startedAt,
      finalizedAt: session.finalizedAt ?? new Date().toISOString(),
      root: session.root,
      ...(session.instructions ? { instructions: session.instructions } : {}),
      reviewed_files: [...session.reviewed]
        .sort((a, b) => a - b)
        .map((i) => displayPath(session, session.files[i]!.path)),
      files: session.files.map((file, i) => ({
        file: displayPath(session, file.path),
        fileContentHash: current[i]?.hash ?? '',
        lineCount: current[i]?.lines.length ?? 0,
        ...(file.baseHash === undefined ? {} : { changed: current[i]?.hash !== file.baseHash }),
      })),
    },
  };
}
