import { defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import type { Engine } from '../engine/engine.js';
import { updateKnowledge } from '../engine/knowledge.js';
import { message } from './schemas.js';

export function updateKnowledgeTool(engine: Engine) {
  return defineTool({
    name: 'update_knowledge',
    title: 'Correct or delete knowledge',
    description:
      'Correct a stored insight (only the fields given change), or remove a wrong or harmful one with ' +
      'delete=true (the answer keeps what was removed). Find the knowledge_id with search_knowledge.',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    input: {
      knowledge_id: z.string(),
      content: z.string().optional(),
      category: z.string().optional(),
      tags: z.array(z.string()).optional().describe('Replace the tags (generated ones follow new content).'),
      source: z.string().optional(),
      delete: z.boolean().optional(),
    },
    output: {
      success: z.boolean(),
      knowledge_id: z.string(),
      updated_fields: z.array(z.string()),
      tags: z.array(z.string()),
      deleted: z
        .object({
          knowledge_id: z.string(),
          content: z.string(),
          category: z.string(),
          project: z.string().nullable(),
          tags: z.array(z.string()),
          source: z.string(),
          created_at: z.string(),
        })
        .optional()
        .describe('The entry as it was, when delete=true.'),
      message,
    },
    async run(args) {
      return updateKnowledge(engine, args);
    },
  });
}
