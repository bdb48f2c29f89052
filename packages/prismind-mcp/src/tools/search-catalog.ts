import { defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import { searchCatalog } from '../engine/catalog.js';
import type { Engine } from '../engine/engine.js';
import { catalogEntry, message, TIMINGS_TEXT, warnings } from './schemas.js';

export function searchCatalogTool(engine: Engine) {
  return defineTool({
    name: 'search_catalog',
    title: 'Search the catalog',
    description:
      'Search the document catalog (目録) by free text (Japanese or English; 1–2 character terms such as 「罠」 ' +
      'work) and filters. Without query, lists by filters, newest first. Space-separated terms must all match; ' +
      'results are ordered by relevance. total_count counts every match, documents holds up to limit.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      query: z.string().optional().describe('Free text.'),
      project: z.string().optional().describe('Only this project (default: every project).'),
      doc_type: z.string().optional().describe('設計書 / 実装手順書 / 仕様書 / 規約 / 設定 / その他.'),
      phase_task: z.string().optional().describe('e.g. "P4-T01", "共通".'),
      feature: z.string().optional(),
      reference_timing: z.string().optional().describe(TIMINGS_TEXT),
      status: z.string().optional().describe('active (default) / archived / all.'),
      limit: z
        .number()
        .int()
        .min(1)
        .max(100)
        .optional()
        .describe('Most documents to return (default 10, max 100).'),
    },
    output: {
      success: z.boolean(),
      total_count: z.number(),
      documents: z.array(catalogEntry),
      warnings,
      message,
    },
    async run(args) {
      return searchCatalog(engine, args);
    },
  });
}
