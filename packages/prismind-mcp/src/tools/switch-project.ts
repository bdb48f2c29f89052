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
      'Make a registered project the current one (the default of every optional project argument). Then ' +
      'call start_session to load its state.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: { project: z.string() },
    output: { success: z.boolean(), project_id: z.string(), name: z.string(), message },
    async run(args) {
      return switchProject(engine, args.project);
    },
  });
}
