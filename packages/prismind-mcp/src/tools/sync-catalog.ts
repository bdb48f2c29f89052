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
      "Rebuild the project's catalog and search cache from the master: the document files themselves. Use it " +
      'after people added, edited, moved or deleted documents by hand, or to recover the cache. Files without ' +
      'front matter are registered (and given front matter); catalog rows whose file is gone are archived.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: { project: z.string().optional().describe('Project id (default: the current project).') },
    output: {
      success: z.boolean(),
      synced_count: z.number().describe('Documents now in the cache.'),
      added_count: z.number(),
      updated_count: z.number(),
      archived_count: z.number(),
      message,
    },
    async run(args) {
      return syncCatalog(engine, args);
    },
  });
}
