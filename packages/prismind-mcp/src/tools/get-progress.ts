import { defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import type { Engine } from '../engine/engine.js';
import { getProgress } from '../engine/progress.js';
import { message } from './schemas.js';

export function getProgressTool(engine: Engine) {
  return defineTool({
    name: 'get_progress',
    title: 'Get progress',
    description:
      'Phases with their tasks and status (the progress table, 進捗). Completed tasks only with ' +
      'include_completed=true.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      project: z.string().optional().describe('Default: the current project.'),
      phase: z.string().optional().describe('"Phase 4", "4" or "P4".'),
      include_completed: z.boolean().optional(),
    },
    output: {
      success: z.boolean(),
      project: z.string(),
      current_phase: z.string(),
      phases: z.array(
        z.object({
          phase: z.string(),
          status: z.string().describe('not_started / in_progress / completed'),
          tasks: z.array(
            z.object({
              task_id: z.string(),
              name: z.string(),
              status: z.string().describe('not_started / in_progress / completed / blocked'),
              blockers: z.array(z.string()),
              completed_at: z.string().nullable(),
              notes: z.string(),
              priority: z.string().describe('high / medium / low'),
              category: z.string(),
              blocked_by: z.array(z.string()),
            }),
          ),
        }),
      ),
      message,
    },
    async run(args) {
      return getProgress(engine, args);
    },
  });
}
