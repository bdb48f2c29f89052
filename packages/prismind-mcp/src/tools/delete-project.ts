import { defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import type { Engine } from '../engine/engine.js';
import { deleteProject } from '../engine/projects.js';
import { message } from './schemas.js';

export function deleteProjectTool(engine: Engine) {
  return defineTool({
    name: 'delete_project',
    title: 'Delete project settings',
    description:
      "Remove a project's settings only: documents, progress, sessions and knowledge stay, and setup_project " +
      'with the same id finds them again. Ask the user, then call with confirm=true (without it nothing happens).',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    input: {
      project: z.string(),
      confirm: z.boolean().optional(),
    },
    output: { success: z.boolean(), project_id: z.string(), message },
    async run(args) {
      return deleteProject(engine, args.project, args.confirm === true);
    },
  });
}
