import { defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import type { Engine } from '../engine/engine.js';
import { addKnowledge } from '../engine/knowledge.js';
import { message } from './schemas.js';

export function addKnowledgeTool(engine: Engine) {
  return defineTool({
    name: 'add_knowledge',
    title: 'Add knowledge',
    description:
      'Store a technical insight (a fix, a tip, a pitfall) for later sessions (search_knowledge). Ask the ' +
      'user first.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    input: {
      content: z.string().describe('Self-contained.'),
      category: z.string().describe('問題解決 / 技術Tips / ベストプラクティス / 落とし穴 / …'),
      project: z.string().optional().describe('Omit for knowledge of every project.'),
      tags: z.array(z.string()).optional().describe('Generated when omitted.'),
      source: z.string().optional().describe('Where it was learned.'),
    },
    output: { success: z.boolean(), knowledge_id: z.string(), tags: z.array(z.string()), message },
    async run(args) {
      return addKnowledge(engine, args);
    },
  });
}
