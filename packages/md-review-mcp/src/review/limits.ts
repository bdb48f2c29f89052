// The budgets of a review. They keep a page fast and a session file small; the README lists them.
export const LIMITS = {
  /** Files in one review. */
  maxFiles: 50,
  /** Bytes of one reviewed file (a 5,000-line document is ~0.3 MB). */
  maxFileBytes: 5 * 1024 * 1024,
  /** Characters of one comment (inline, global or overall). */
  maxCommentChars: 20_000,
  /** Inline plus global comments in one session. */
  maxComments: 2_000,
  maxTitleChars: 500,
  maxInstructionsChars: 20_000,
} as const;
