import { ToolError } from '@mcp-workbench/core/engine';

/** The five output-format flags of search_content; at most one may be set. */
export const OUTPUT_MODE_FLAGS = [
  'total_only',
  'count_only_matches',
  'summary_only',
  'group_by_file',
  'optimize_paths',
] as const;

export type OutputModeFlag = (typeof OUTPUT_MODE_FLAGS)[number];
export type OutputMode = OutputModeFlag | 'matches';

export const DEFAULT_MAX_COUNT = 1_000;
export const MAX_MAX_COUNT = 10_000;

/**
 * Picks the output mode from the flags; more than one is an INVALID_ARGUMENT that names the
 * conflicting flags and shows a correct call.
 */
export function outputModeOf(
  flags: Partial<Record<OutputModeFlag, boolean | undefined>>,
  query: string,
): OutputMode {
  const set = OUTPUT_MODE_FLAGS.filter((flag) => flags[flag] === true);
  if (set.length > 1) {
    const example = JSON.stringify({ query, [set[0] as string]: true });
    throw new ToolError(
      'INVALID_ARGUMENT',
      `Output format parameters are mutually exclusive: ${set.join(', ')} were set together. Set at most one of ${OUTPUT_MODE_FLAGS.join(', ')}.`,
      {
        hint: `Choose one, e.g. search_content ${example}; omit them all for the standard match list.`,
        details: { conflicting: set, allowed_one_of: [...OUTPUT_MODE_FLAGS] },
      },
    );
  }
  return set[0] ?? 'matches';
}

/**
 * max_count becomes ripgrep's `-m N`. Absent → the default; above the cap → clamped to the cap;
 * negative or non-integer → INVALID_ARGUMENT stating the allowed range.
 */
export function effectiveMaxCount(value: unknown): { value: number; clamped: boolean } {
  if (value === undefined || value === null) return { value: DEFAULT_MAX_COUNT, clamped: false };
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new ToolError(
      'INVALID_ARGUMENT',
      `max_count must be an integer from 1 to ${MAX_MAX_COUNT}; got ${JSON.stringify(value)}.`,
      {
        hint: `Pass max_count between 1 and ${MAX_MAX_COUNT} (larger values are clamped to ${MAX_MAX_COUNT}; omit it for the default ${DEFAULT_MAX_COUNT}).`,
        details: { allowed_range: { min: 1, max: MAX_MAX_COUNT }, default: DEFAULT_MAX_COUNT },
      },
    );
  }
  return value > MAX_MAX_COUNT ? { value: MAX_MAX_COUNT, clamped: true } : { value, clamped: false };
}
