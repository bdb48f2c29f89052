import { z } from 'zod';
import { DOC_TYPES, REFERENCE_TIMINGS } from '../model/vocab.js';

/** Schemas shared by several tools. */
export const projectIdParam = z
  .string()
  .describe('Project id: letters and digits (e.g. "trapxtrap"). Omit to use the current project.');

export const docReference = z.object({
  name: z.string(),
  doc_id: z.string(),
  reason: z.string().describe('Why this document (e.g. "現在タスク (P4-T01) の実装手順書").'),
});

export const catalogEntry = z.object({
  doc_id: z.string(),
  name: z.string(),
  doc_type: z.string(),
  project: z.string(),
  phase_task: z.string(),
  feature: z.string(),
  source: z.string().describe('Where the document lives ("local": a Markdown file in the store folder).'),
  updated_at: z.string().describe('更新日 (ISO 8601).'),
  keywords: z.array(z.string()),
  reference_timing: z.string(),
  status: z.string().describe('active | archived'),
  relevance_score: z
    .number()
    .optional()
    .describe('With a query: ≥ 0.5 when the document contains every term; near candidates score less.'),
});

export const warnings = z
  .array(z.string())
  .optional()
  .describe('Present when the search degraded (e.g. the embeddings endpoint did not answer).');

export const message = z
  .string()
  .describe("What happened, in the spec's words; notices of automatic saves are appended.");

export const TIMINGS_TEXT = REFERENCE_TIMINGS.join(' / ');
export const DOC_TYPES_TEXT = Object.keys(DOC_TYPES).join(' / ');
