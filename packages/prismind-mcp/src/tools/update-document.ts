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
      "Replace (default) or append to a document's content and/or change its catalog metadata (name, " +
      'phase_task, feature, keywords, reference_timing, related_docs, status, created_by); 更新日 is updated. ' +
      'If a person edited the file since the server last read it, nothing is overwritten: a CONFLICT error says ' +
      'to read it with get_document and retry with expected_hash = metadata.content_hash.',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    input: {
      doc_id: z.string(),
      content: z.string().optional().describe('New content (Markdown).'),
      append: z.boolean().optional().describe('true: add content at the end; false (default): replace.'),
      metadata: z
        .record(z.string(), z.unknown())
        .optional()
        .describe('Catalog fields to change, e.g. {"status": "archived"}.'),
      expected_hash: z
        .string()
        .optional()
        .describe('content_hash from get_document: refuse if the document changed since.'),
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
