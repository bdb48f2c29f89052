import { defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import { createDocument } from '../engine/documents.js';
import type { Engine } from '../engine/engine.js';
import { message, TIMINGS_TEXT } from './schemas.js';

export function createDocumentTool(engine: Engine) {
  return defineTool({
    name: 'create_document',
    title: 'Create a document',
    description:
      'Create a design doc (設計書), procedure doc (実装手順書) or other document in the current project and ' +
      "register it in the catalog, in one step (both or neither). It is written as Markdown in the type's " +
      'folder with a heading. Procedure docs are named P<phase>_T<task>_<feature>_<asset_type>_<seq> from ' +
      'phase_task "P4-T01", feature and asset_type. Keywords are generated from name + content when omitted. ' +
      'Design decisions → 設計書; steps → 実装手順書; tips → add_knowledge instead.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    input: {
      name: z.string().describe('Document name, e.g. "WeaponSystem刷新".'),
      doc_type: z
        .string()
        .describe(
          '設計書 / 実装手順書 / 仕様書 / 規約 / 設定 / その他 (design, procedure, spec, … work too).',
        ),
      content: z.string().describe('Markdown body (a heading is added unless it starts with one).'),
      phase_task: z.string().describe('"P4-T01", or 共通 / 事前設計 / 技術選定 / 環境構築 / 運用 ….'),
      feature: z.string().optional().describe('Feature name (used in procedure file names).'),
      keywords: z.array(z.string()).optional().describe('Search keywords (generated when omitted).'),
      reference_timing: z.string().optional().describe(`When to read it: ${TIMINGS_TEXT}.`),
      related_docs: z.array(z.string()).optional().describe('doc_ids to read with it.'),
      asset_type: z
        .string()
        .optional()
        .describe('Procedure docs: target asset kind for the file name (Blueprint, C++, Widget, …).'),
      created_by: z.string().optional().describe('作成者 (default: the session user).'),
      project: z.string().optional().describe('Project id (default: the current project).'),
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
