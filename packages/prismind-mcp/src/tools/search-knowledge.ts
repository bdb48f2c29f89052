import { defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import type { Engine } from '../engine/engine.js';
import { searchKnowledge } from '../engine/knowledge.js';
import { message, warnings } from './schemas.js';

export function searchKnowledgeTool(engine: Engine) {
  return defineTool({
    name: 'search_knowledge',
    title: 'Search knowledge',
    description:
      'Find stored insights by meaning and words (Japanese or English; short terms like 「罠」 work), best first ' +
      'with relevance_score in [0, 1]: entries containing every term score ≥ 0.5. Filters: category, project ' +
      '(omit for all, including general knowledge), tags (all must be present).',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      query: z.string(),
      category: z.string().optional(),
      project: z.string().optional(),
      tags: z.array(z.string()).optional().describe('Every tag must be present (AND).'),
      limit: z
        .number()
        .int()
        .min(1)
        .max(50)
        .optional()
        .describe('Most entries to return (default 5, max 50).'),
    },
    output: {
      success: z.boolean(),
      total_count: z.number(),
      knowledge: z.array(
        z.object({
          knowledge_id: z.string(),
          content: z.string(),
          category: z.string(),
          project: z.string().nullable().describe('null for general knowledge.'),
          tags: z.array(z.string()),
          source: z.string(),
          created_at: z.string(),
          relevance_score: z.number(),
        }),
      ),
      warnings,
      message,
    },
    async run(args) {
      return searchKnowledge(engine, args);
    },
  });
}
