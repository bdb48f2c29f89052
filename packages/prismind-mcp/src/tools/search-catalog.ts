import { defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import { searchCatalog } from '../engine/catalog.js';
import type { Engine } from '../engine/engine.js';
import { catalogEntry, DOC_TYPES_TEXT, message, TIMINGS_TEXT, warnings } from './schemas.js';

export function searchCatalogTool(engine: Engine) {
  return defineTool({
    name: 'search_catalog',
    title: 'Search the catalog',
    description:
      'Search the document catalog (目録) by free text and filters; without query, list by filters, newest ' +
      'first. Documents containing every term come first, then near ones. total_count counts every match.',
    // Not read-only: hand edits and files added by hand are taken in first (see get_document).
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      query: z.string().optional(),
      project: z.string().optional().describe('Default: every project.'),
      doc_type: z.string().optional().describe(DOC_TYPES_TEXT),
      phase_task: z.string().optional(),
      feature: z.string().optional(),
      reference_timing: z.string().optional().describe(TIMINGS_TEXT),
      status: z.string().optional().describe('active (default) / archived / all'),
      limit: z.number().int().min(1).max(100).optional().describe('Default 10.'),
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
