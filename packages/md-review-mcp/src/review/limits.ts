// The budgets of a review. They keep a page fast and a session file small; the README lists them.
export const LIMITS = {
  /** Files in one review. */
  maxFiles: 50,
  /** Bytes of one reviewed file (a 5,000-line document is ~0.3 MB). */
  maxFileBytes: 5 * 1024 * 1024,
  /**
   * Bytes of all the files of one review. A finished round's texts are kept as one JSON string, which
   * escaping can make up to 6 times longer: 50 files of 5 MB passed V8's string limit and the review
   * could then be neither finalized nor cancelled.
   */
  maxReviewBytes: 20 * 1024 * 1024,
  /** Characters of one comment (inline, global or overall). */
  maxCommentChars: 20_000,
  /** Inline plus global comments in one session. */
  maxComments: 2_000,
  maxTitleChars: 500,
  maxInstructionsChars: 20_000,
} as const;
