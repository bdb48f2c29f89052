import { defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import type { Engine } from '../engine/engine.js';
import { listProjects } from '../engine/projects.js';
import { message } from './schemas.js';

export function listProjectsTool(engine: Engine) {
  return defineTool({
    name: 'list_projects',
    title: 'List projects',
    description:
      'Registered projects (newest change first), current_project, and storage: the store and search ' +
      'machinery this server runs on.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {},
    output: {
      success: z.boolean(),
      projects: z.array(
        z.object({
          project_id: z.string(),
          name: z.string(),
          description: z.string(),
          updated_at: z.string(),
        }),
      ),
      current_project: z.string().describe('Id of the current project ("" if none).'),
      storage: z
        .object({
          backend: z.string(),
          location: z.string(),
          keyword_search: z.string(),
          similarity_search: z.string(),
          similarity_score: z.string(),
        })
        .optional()
        .describe('The store this server runs on and the search machinery it chose at start.'),
      message,
    },
    async run() {
      return listProjects(engine);
    },
  });
}
