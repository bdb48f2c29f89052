import { z } from 'zod';
import { SEVERITIES, VERDICTS } from '../review/types.js';

const range = z.object({
  startLine: z.number().int().describe('1-based, inclusive.'),
  endLine: z.number().int().describe('1-based, inclusive.'),
});

export const SummarySchema = z.object({
  overall_comment: z.string().optional(),
  comment_count: z.number().int().describe('inline + global'),
  inline_comment_count: z.number().int(),
  global_comment_count: z.number().int(),
  earlier_comment_count: z
    .number()
    .int()
    .optional()
    .describe('From round 2: comments kept from earlier rounds, not counted above.'),
});

export const InlineCommentSchema = z.object({
  id: z.string(),
  file: z.string().describe('Relative to working_path.'),
  range,
  comment: z.string(),
  severity: z
    .enum(SEVERITIES)
    .describe('must = critical, should = important, suggestion = optional, question = info'),
  createdAt: z.string(),
  anchor: z.object({
    fileContentHash: z.string().describe('sha256 of the file when the comment was written.'),
    rangeTextHash: z.string().optional(),
    preview: z.string().optional(),
  }),
  round: z.number().int().describe("The round it was written in (below the answer's round: kept from then)."),
  stale: z
    .boolean()
    .optional()
    .describe('The commented lines were edited or removed since; range is where they were.'),
  moved: z
    .boolean()
    .optional()
    .describe('The same lines are elsewhere now: range is their new place, original_range the old one.'),
  original_range: range.optional().describe('Where the comment was written, when its lines moved to range.'),
});

export const GlobalCommentSchema = z.object({
  id: z.string(),
  comment: z.string(),
  createdAt: z.string(),
  round: z.number().int().describe('The round it was written in.'),
});

export const MetaSchema = z.object({
  startedAt: z.string(),
  finalizedAt: z.string(),
  root: z.string(),
  instructions: z.string().optional(),
  reviewed_files: z.array(z.string()),
  files: z.array(
    z.object({
      file: z.string(),
      fileContentHash: z.string(),
      lineCount: z.number().int(),
      changed: z
        .boolean()
        .optional()
        .describe('Another round: changed since the version reviewed last round.'),
      reviewedContentHash: z.string().optional().describe('sha256 of the text the person reviewed.'),
      changed_since_review: z
        .boolean()
        .optional()
        .describe('The file now is not the text the person reviewed: the verdict is not about it.'),
      missing: z.boolean().optional().describe('The file can no longer be read (deleted, renamed).'),
    }),
  ),
});

/** review_request answers either with the finished review (spec 004) or, after wait_seconds, with a pending note. */
export const ReviewAnswerShape = {
  status: z.enum(['pending']).optional().describe('Present only while the person is still reviewing.'),
  resume_key: z.string(),
  title: z.string(),
  round: z.number().int().describe('1, then one more per round.'),
  verdict: z
    .enum(VERDICTS)
    .optional()
    .describe("This round's: comments kept from earlier rounds do not count."),
  repeated: z
    .boolean()
    .optional()
    .describe('The same result as an earlier call (the files have not changed since); no new round.'),
  summary: SummarySchema,
  previous_round: z
    .object({ round: z.number().int(), verdict: z.enum(VERDICTS), overall_comment: z.string().optional() })
    .optional()
    .describe("The round before's verdict and overall comment (in case its answer never reached you)."),
  inline_comments: z.array(InlineCommentSchema).optional(),
  global_comments: z.array(GlobalCommentSchema).optional(),
  meta: MetaSchema.optional(),
  warnings: z.array(z.string()).optional().describe('Files changed or gone since the person reviewed them.'),
  url: z.string().optional().describe('Pending only: the review page, to open by hand if it did not appear.'),
  waited_seconds: z.number().optional(),
  message: z.string().optional(),
};
