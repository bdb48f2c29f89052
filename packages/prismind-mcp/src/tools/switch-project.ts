import { defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import type { Engine } from '../engine/engine.js';
import { switchProject } from '../engine/projects.js';
import { message } from './schemas.js';

export function switchProjectTool(engine: Engine) {
  return defineTool({
    name: 'switch_project',
    title: 'Switch project',
    description:
      'Make another registered project the current one (for the configured user). Tools that take an optional ' +
      'project use the current project when it is omitted. Call start_session afterwards to load its state.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: { project: z.string().describe('Project id to switch to (see list_projects).') },
    output: { success: z.boolean(), project_id: z.string(), name: z.string(), message },
    async run(args) {
      return switchProject(engine, args.project);
    },
  });
}
