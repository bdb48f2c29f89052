import { defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import { createDocument } from '../engine/documents.js';
import type { Engine } from '../engine/engine.js';
import { DOC_TYPES_TEXT, message, TIMINGS_TEXT } from './schemas.js';

export function createDocumentTool(engine: Engine) {
  return defineTool({
    name: 'create_document',
    title: 'Create a document',
    description:
      'Write a Markdown document and register it in the catalog (both or neither). Design decisions → 設計書, ' +
      'steps → 実装手順書, tips → add_knowledge instead. Procedure docs are named ' +
      'P<phase>_T<task>_<feature>_<asset_type>_<seq>.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    input: {
      name: z.string(),
      doc_type: z.string().describe(DOC_TYPES_TEXT),
      content: z.string().describe('Markdown; a heading is added unless it starts with one.'),
      phase_task: z.string().describe('"P4-T01", 共通, 技術選定, ….'),
      feature: z.string().optional(),
      keywords: z.array(z.string()).optional().describe('Generated when omitted.'),
      reference_timing: z.string().optional().describe(TIMINGS_TEXT),
      related_docs: z.array(z.string()).optional().describe('doc_ids to read with it.'),
      asset_type: z.string().optional().describe('Blueprint, C++, Widget, …'),
      created_by: z.string().optional().describe('Default: the session user.'),
      project: z.string().optional().describe('Default: the current project.'),
    },
    output: {
      success: z.boolean(),
      doc_id: z.string(),
      name: z.string(),
      doc_url: z.string().describe('Where to open it (a file:// URL for the local store).'),
      source: z.string(),
      catalog_registered: z.boolean(),
      file_name: z.string(),
      keywords: z.array(z.string()),
      message,
    },
    async run(args) {
      return createDocument(engine, args);
    },
  });
}
