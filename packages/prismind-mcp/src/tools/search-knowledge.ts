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
      'Find stored insights by words and meaning, best first; relevance_score ≥ 0.5 when an entry contains ' +
      'every term.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      query: z.string(),
      category: z.string().optional(),
      project: z.string().optional().describe('Default: every project and general knowledge.'),
      tags: z.array(z.string()).optional().describe('All must be present.'),
      limit: z.number().int().min(1).max(50).optional().describe('Default 5.'),
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
