/** Batch extraction limits (spec 001). Big extractions eat tokens, memory and IO for every client. */
export const EXTRACT_LIMITS = {
  max_files: 20,
  max_sections_per_file: 50,
  max_sections_total: 200,
  max_total_bytes: 1_048_576,
  max_total_lines: 5_000,
  max_file_size: 5 * 1_048_576,
} as const;

export type ExtractLimitName = keyof typeof EXTRACT_LIMITS;

/** Limit values (tests pass smaller ones). */
export type ExtractLimits = Record<ExtractLimitName, number>;
