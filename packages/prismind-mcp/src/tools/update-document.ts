import { defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import { updateDocument } from '../engine/documents.js';
import type { Engine } from '../engine/engine.js';
import { message } from './schemas.js';

export function updateDocumentTool(engine: Engine) {
  return defineTool({
    name: 'update_document',
    title: 'Update a document',
    description:
      "Replace or append to a document's content and/or change its catalog metadata (name, phase_task, " +
      'feature, keywords, reference_timing, related_docs, status, created_by). An edit nobody has read is never ' +
      'overwritten (CONFLICT: read it with get_document, retry with expected_hash).',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    input: {
      doc_id: z.string(),
      content: z.string().optional(),
      append: z.boolean().optional().describe('Add content at the end (default: replace).'),
      metadata: z.record(z.string(), z.unknown()).optional().describe('e.g. {"status": "archived"}.'),
      expected_hash: z.string().optional().describe('metadata.content_hash from get_document.'),
    },
    output: {
      success: z.boolean(),
      doc_id: z.string(),
      updated_fields: z.array(z.string()).describe('e.g. ["content", "keywords"].'),
      content_hash: z.string(),
      message,
    },
    async run(args) {
      return updateDocument(engine, args);
    },
  });
}
