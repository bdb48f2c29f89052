import { ToolError, utf8ByteLength } from '@mcp-workbench/core';

/**
 * Most bytes one exstruct answer carries: far under the 10 MiB a stdio client accepts in one message
 * (with --structured-output an answer is sent twice, as text and as structuredContent; core replaces
 * anything over 8 MiB by an error as a last resort). A workbook can hold far more than that in a few
 * cells (32,767 characters each), so every tool that returns workbook content checks its answer.
 */
export const MAX_ANSWER_BYTES = 2_000_000;

function jsonBytes(value: unknown): number {
  return utf8ByteLength(JSON.stringify(value) ?? '');
}

/** The answer, or LIMIT_EXCEEDED saying what to ask for instead when it is larger than the limit. */
export function fitAnswer<T>(answer: T, what: string, hint: string): T {
  const bytes = jsonBytes(answer);
  if (bytes <= MAX_ANSWER_BYTES) return answer;
  throw new ToolError(
    'LIMIT_EXCEEDED',
    `${what} is ${bytes} bytes, more than one answer carries (${MAX_ANSWER_BYTES} bytes).`,
    { hint, details: { limit: 'max_answer_bytes', value: bytes, max: MAX_ANSWER_BYTES } },
  );
}

/**
 * A list cut to the items that fit `budget` bytes (in order), with how many were left out.
 */
function keepWithin<T>(items: readonly T[], budget: number): { kept: T[]; dropped: number } {
  let used = 2;
  let count = 0;
  for (const item of items) {
    const cost = jsonBytes(item) + 1;
    if (used + cost > budget) break;
    used += cost;
    count++;
  }
  return { kept: items.slice(0, count), dropped: items.length - count };
}

interface EditAnswer {
  patch_diff: unknown[];
  inverse_ops: unknown[];
  formula_issues: unknown[];
  warnings: string[];
}

/**
 * The answer of a patch or make that was written but is too large to send (150,000 ops, or inverse ops
 * carrying a sheet of long texts): the written file stays as it is, and the lists are cut to fit, each
 * cut said in `warnings`. Inverse ops are all or nothing (a part of them would undo a part of the
 * patch): they are dropped whole when they do not fit.
 */
export function fitEditAnswer<T extends EditAnswer>(answer: T): T {
  if (jsonBytes(answer) <= MAX_ANSWER_BYTES) return answer;
  const notes: string[] = [];
  const fitted = { ...answer };
  const share = Math.floor(MAX_ANSWER_BYTES / 4);
  if (jsonBytes(answer.inverse_ops) > share) {
    fitted.inverse_ops = [];
    notes.push(
      `inverse_ops (${answer.inverse_ops.length} ops) are too large for one answer and were left out; ` +
        'keep a copy of the workbook before a patch this large to be able to undo it, or patch in smaller calls.',
    );
  }
  const diff = keepWithin(answer.patch_diff, share);
  if (diff.dropped > 0) {
    fitted.patch_diff = diff.kept;
    notes.push(
      `patch_diff lists the first ${diff.kept.length} of ${answer.patch_diff.length} changes (answer size limit); all were applied.`,
    );
  }
  const issues = keepWithin(answer.formula_issues, share);
  if (issues.dropped > 0) {
    fitted.formula_issues = issues.kept;
    notes.push(
      `formula_issues lists the first ${issues.kept.length} of ${answer.formula_issues.length} (answer size limit).`,
    );
  }
  const warnings = keepWithin(answer.warnings, share - 2000);
  fitted.warnings = [
    ...notes,
    ...warnings.kept,
    ...(warnings.dropped > 0 ? [`… and ${warnings.dropped} more warnings.`] : []),
  ];
  return fitted;
}
