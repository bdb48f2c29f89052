import { defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import { getDocument } from '../engine/documents.js';
import type { Engine } from '../engine/engine.js';
import { DOC_TYPES_TEXT, docReference, message } from './schemas.js';

export function getDocumentTool(engine: Engine) {
  return defineTool({
    name: 'get_document',
    title: 'Get a document',
    description:
      'Fetch a document by doc_id, or find it by query (e.g. "WeaponSystem刷新の実装手順書") in the current ' +
      "project's catalog. One match → document; several → candidates (call again with a doc_id); none → " +
      "found=false with near candidates. metadata.content_hash is update_document's expected_hash.",
    // Not read-only: a hand edit it finds is taken in (the catalog, 目録.md and サマリ.md are updated, a
    // copied file's duplicate doc_id replaced), which a client may not run unasked or in parallel.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      query: z.string().optional(),
      doc_id: z.string().optional(),
      doc_type: z.string().optional().describe(DOC_TYPES_TEXT),
      phase_task: z.string().optional().describe('e.g. "P4-T01", "共通".'),
    },
    output: {
      found: z.boolean(),
      document: z
        .object({
          doc_id: z.string(),
          name: z.string(),
          doc_type: z.string(),
          content: z.string().describe('The document (Markdown, without front matter).'),
          source: z.string(),
          metadata: z.object({
            project: z.string(),
            phase_task: z.string(),
            feature: z.string(),
            keywords: z.array(z.string()),
            reference_timing: z.string(),
            related_docs: z.array(z.string()),
            status: z.string(),
            created_by: z.string(),
            created_at: z.string(),
            updated_at: z.string(),
            content_hash: z.string(),
            location: z.string(),
            url: z.string(),
          }),
        })
        .optional(),
      candidates: z.array(docReference),
      message,
    },
    async run(args) {
      return getDocument(engine, args);
    },
  });
}
