import { defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import { syncCatalog } from '../engine/catalog.js';
import type { Engine } from '../engine/engine.js';
import { message } from './schemas.js';

export function syncCatalogTool(engine: Engine) {
  return defineTool({
    name: 'sync_catalog',
    title: 'Sync the catalog',
    description:
      "Rebuild the project's catalog and search cache from the documents themselves (the master): registers " +
      'documents added by hand, archives rows whose document is gone. Use it after edits by hand or to recover.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: { project: z.string().optional().describe('Default: the current project.') },
    output: {
      success: z.boolean(),
      synced_count: z.number().describe('Documents now in the cache.'),
      added_count: z.number(),
      updated_count: z.number(),
      archived_count: z.number(),
      warnings: z
        .array(z.string())
        .optional()
        .describe('Files not read: links, special files, files over the size limit.'),
      message,
    },
    async run(args) {
      return syncCatalog(engine, args);
    },
  });
}
