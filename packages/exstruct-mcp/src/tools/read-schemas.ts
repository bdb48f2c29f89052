import { z } from 'zod';

/** A cell value in an extraction output: text (dates as ISO 8601), number or boolean; null when empty. */
export const CellValueSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** The most `max_bytes` of exstruct_read_json_chunk may ask for. */
export const MAX_CHUNK_BYTES = 1_000_000;
/** The most `max_cells` of exstruct_read_range may ask for. */
export const MAX_RANGE_CELLS = 100_000;

/** The out_path exstruct_extract returned (its description says so: the name needs no more). */
export const outPathInput = z.string().min(1);

export const sheetInput = z.string().optional().describe('Required when the output has several sheets.');

export const CellItemSchema = z.object({
  cell: z.string().describe('A1 address.'),
  value: CellValueSchema,
  formula: z.string().optional().describe('The formula ("=SUM(A1:A3)"), when the output has formulas_map.'),
});
