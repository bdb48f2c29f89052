import { defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import { getDocument } from '../engine/documents.js';
import type { Engine } from '../engine/engine.js';
import { docReference, message } from './schemas.js';

export function getDocumentTool(engine: Engine) {
  return defineTool({
    name: 'get_document',
    title: 'Get a document',
    description:
      'Fetch a document by doc_id, or find it by query (e.g. "WeaponSystem刷新の実装手順書") in the current ' +
      "project's catalog, narrowed by doc_type / phase_task. One match → document; several → candidates " +
      '(call again with a doc_id); none → found=false with near candidates. Edits a person made to the file are ' +
      "seen (and recorded in the catalog). metadata.content_hash is what update_document's expected_hash wants.",
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      query: z.string().optional().describe('Words from the name, keywords or text (Japanese or English).'),
      doc_id: z
        .string()
        .optional()
        .describe('Exact id (from search_catalog, create_document or candidates).'),
      doc_type: z.string().optional().describe('設計書 / 実装手順書 / 仕様書 / 規約 / 設定 / その他.'),
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
