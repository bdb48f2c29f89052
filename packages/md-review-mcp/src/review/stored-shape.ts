// The shape a stored session must have to be used. A file edited or damaged by hand (a wrong type, a
// comment on a file the session does not have) is refused by name instead of failing deep inside a
// call, and `review_list` skips it rather than answering INTERNAL for every session.
import { z } from 'zod';
import { SEVERITIES, VERDICTS, type StoredSession } from './types.js';

const text = z.string();
const range = z.object({ startLine: z.number().int().min(1), endLine: z.number().int().min(1) });

const sessionShape = z.looseObject({
  version: z.literal(1),
  resume_key: text,
  title: text,
  root: text,
  working_path: text,
  instructions: text.optional(),
  files: z.array(z.looseObject({ path: text, finishedHash: text.optional(), baseHash: text.optional() })),
  status: z.enum(['open', 'finalized', 'cancelled']),
  startedAt: text,
  finalizedAt: text.optional(),
  delivered: z.boolean(),
  overall_comment: text.optional(),
  reviewed: z.array(z.number().int().min(0)),
  inline_comments: z.array(
    z.looseObject({
      id: text,
      fileIndex: z.number().int().min(0),
      range,
      comment: text,
      severity: z.enum(SEVERITIES),
      createdAt: text,
      updatedAt: text.optional(),
      anchor: z.looseObject({ fileContentHash: text, rangeTextHash: text, preview: text }),
      round: z.number().int().min(1).optional(),
    }),
  ),
  global_comments: z.array(
    z.looseObject({
      id: text,
      comment: text,
      createdAt: text,
      updatedAt: text.optional(),
      round: z.number().int().min(1).optional(),
    }),
  ),
  updatedAt: text,
  round: z.number().int().min(1).optional(),
  rounds: z
    .array(
      z.looseObject({
        round: z.number().int().min(1),
        verdict: z.enum(VERDICTS),
        overall_comment: text.optional(),
        finalized_at: text.optional(),
      }),
    )
    .optional(),
});

/** What is wrong with a stored session for `key`, or undefined when it can be used. */
export function storedSessionProblem(value: unknown, key: string): string | undefined {
  const parsed = sessionShape.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return `${issue.path.join('.') || 'the file'}: ${issue.message}`;
  }
  const session = parsed.data as StoredSession;
  if (session.resume_key !== key) return `it is the session of ${JSON.stringify(session.resume_key)}`;
  const files = session.files.length;
  const outside = [...session.inline_comments.map((c) => c.fileIndex), ...session.reviewed].find(
    (index) => index >= files,
  );
  if (outside !== undefined) return `it names file ${outside} of a session that has ${files}`;
  return undefined;
}
