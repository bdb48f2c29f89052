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
      "Remove a project's settings (only the settings: documents, progress, sessions and knowledge stay where " +
      'they are, and setup_project with the same id finds them again). Needs confirm=true; without it nothing ' +
      'happens and the message says what would be removed and where the data stays. Ask the user before confirming.',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    input: {
      project: z.string().describe('Project id.'),
      confirm: z.boolean().optional().describe('Must be true to delete (default false).'),
    },
    output: { success: z.boolean(), project_id: z.string(), message },
    async run(args) {
      return deleteProject(engine, args.project, args.confirm === true);
    },
  });
}
