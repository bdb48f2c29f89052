// The review as it is stored and as the agent gets it back. Field names follow spec 004 exactly
// (camelCase inside comments and meta, snake_case at the top level), so the stored session, the page's
// API and the tool result all speak one vocabulary.

export const SEVERITIES = ['must', 'should', 'suggestion', 'question'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const VERDICTS = ['approved', 'commented', 'cancelled'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** open: the person may comment; finalized / cancelled: the person is done (until the agent reopens). */
export type SessionStatus = 'open' | 'finalized' | 'cancelled';

export interface LineRange {
  /** 1-based, inclusive. */
  startLine: number;
  /** 1-based, inclusive. */
  endLine: number;
}

export interface Anchor {
  /** sha256 (hex) of the file's bytes when the comment was written. */
  fileContentHash: string;
  /** sha256 (hex) of the commented lines joined with "\n". */
  rangeTextHash: string;
  /** The commented lines, cut to a few hundred characters. */
  preview: string;
}

export interface StoredInlineComment {
  id: string;
  /** Index into the session's files. */
  fileIndex: number;
  range: LineRange;
  comment: string;
  severity: Severity;
  createdAt: string;
  updatedAt?: string;
  anchor: Anchor;
  /** The round it was written in (absent in sessions stored before rounds were recorded: round 1). */
  round?: number;
}

export interface GlobalComment {
  id: string;
  comment: string;
  createdAt: string;
  updatedAt?: string;
  /** The round it was written in (absent = round 1). */
  round?: number;
}

/** A reviewed file as the session knows it: where it is and how the agent named it. */
export interface SessionFile {
  /** Canonical absolute path (through the path policy). */
  path: string;
  /**
   * sha256 of the file as the person finished the last round: the text the page showed them (Finalize is
   * refused when the disk differs from it), or the disk's for a file the page never showed.
   */
  finishedHash?: string;
  /** sha256 of the version this round compares against (the last round's finished one); none in round 1. */
  baseHash?: string;
}

/** The texts of a session's files at one moment (index = file index; undefined = unreadable then). */
export type RoundSnapshot = Array<{ hash: string; text: string } | null>;

export interface StoredSession {
  version: 1;
  resume_key: string;
  title: string;
  root: string;
  working_path: string;
  instructions?: string;
  files: SessionFile[];
  status: SessionStatus;
  startedAt: string;
  finalizedAt?: string;
  /**
   * Whether the last finalize/cancel has been handed to an agent (then the next request answers it again,
   * or reopens the review once the files changed or the agent asks for a new round).
   */
  delivered: boolean;
  /** The person's overall comment of this round (each round starts without one). */
  overall_comment?: string;
  /** Indexes of the files the person marked as reviewed. */
  reviewed: number[];
  inline_comments: StoredInlineComment[];
  global_comments: GlobalComment[];
  updatedAt: string;
  /** 1 for the first round; one more each time the agent reopens the review. */
  round?: number;
  /** Each finished round's verdict, recorded when the next opens (absent in sessions stored before). */
  rounds?: FinishedRound[];
}

/** What the person concluded in a round: kept, because the agent may never have seen that answer. */
export interface FinishedRound {
  round: number;
  verdict: Verdict;
  overall_comment?: string;
  finalized_at?: string;
}

// ---- The result the agent receives (spec 004 "出力") ----

export interface InlineCommentResult {
  id: string;
  file: string;
  range: LineRange;
  comment: string;
  severity: Severity;
  createdAt: string;
  anchor: Anchor;
  /** The round it was written in: below the answer's `round`, it was kept from an earlier round. */
  round: number;
  /** The commented lines were edited or removed since: `range` is where they were. */
  stale?: boolean;
  /** The same lines are elsewhere now (text inserted or removed above them): `range` is their new place. */
  moved?: boolean;
  /** Where the comment was written, when its lines moved to `range`. */
  original_range?: LineRange;
}

export interface FileInfo {
  file: string;
  fileContentHash: string;
  lineCount: number;
  /** From the second round on: whether the file changed since the version reviewed in the last round. */
  changed?: boolean;
  /** sha256 of the text the person had on screen when they finished (what the verdict is about). */
  reviewedContentHash?: string;
  /** The file on disk is not what the person reviewed (rewritten or gone since). */
  changed_since_review?: boolean;
  /** The file can no longer be read (deleted, renamed, or now outside the roots since the review). */
  missing?: boolean;
}

/** This round's comments; those kept from earlier rounds are counted apart (from round 2 on). */
export interface ReviewSummary {
  overall_comment?: string;
  comment_count: number;
  inline_comment_count: number;
  global_comment_count: number;
  earlier_comment_count?: number;
}

export interface ReviewResult {
  resume_key: string;
  title: string;
  /** 1, then one more per round the agent asked for. */
  round: number;
  verdict: Verdict;
  /** This round's result was answered before (a call that ended unseen): it is given again, unchanged. */
  repeated?: boolean;
  message?: string;
  summary: ReviewSummary;
  inline_comments: InlineCommentResult[];
  global_comments: Array<Pick<GlobalComment, 'id' | 'comment' | 'createdAt'> & { round: number }>;
  meta: {
    startedAt: string;
    finalizedAt: string;
    root: string;
    instructions?: string;
    reviewed_files: string[];
    files: FileInfo[];
  };
  /** What the agent must know before acting on the verdict (a file changed or vanished since). */
  warnings?: string[];
  /** From round 2: the round before's verdict, which a lost answer may have kept from the agent. */
  previous_round?: Omit<FinishedRound, 'finalized_at'>;
}
