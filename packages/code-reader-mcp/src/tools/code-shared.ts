import { z } from 'zod';

export const classSchema = z.object({
  name: z.string(),
  kind: z.string(),
  start_line: z.number(),
  end_line: z.number(),
  methods: z.number(),
  fields: z.number(),
});

export const functionSchema = z.object({
  name: z.string(),
  kind: z.enum(['function', 'method']),
  class: z.string(),
  start_line: z.number(),
  end_line: z.number(),
  lines: z.number(),
  params: z.number(),
  complexity: z.number(),
});

export const fieldSchema = z.object({ name: z.string(), class: z.string(), line: z.number() });
export const importSchema = z.object({ line: z.number(), text: z.string() });

export const metricsSchema = z.object({
  total_lines: z.number(),
  code_lines: z.number(),
  comment_lines: z.number(),
  blank_lines: z.number(),
  bytes: z.number(),
  content_hash: z.string().describe('First 16 hex digits of the SHA-256 of the content.'),
  tokens: z.number().describe('o200k_base tokens (GPT-4o family tokenizer).'),
});

/** A source file: relative to the project directory or absolute inside a root (the instructions say so). */
export const filePathInput = z.string();

/** Runs `work` over items with at most `limit` in flight, keeping the input order in the results. */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
