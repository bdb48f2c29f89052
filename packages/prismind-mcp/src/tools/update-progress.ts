import { defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import type { Engine } from '../engine/engine.js';
import { updateProgress } from '../engine/progress.js';
import { PRIORITIES, TASK_CATEGORIES, TASK_STATUSES } from '../model/vocab.js';
import { message } from './schemas.js';

export function updateProgressTool(engine: Engine) {
  return defineTool({
    name: 'update_progress',
    title: 'Update progress',
    description:
      'Update a task, or add one with new_task. Completing a task sets completed_at. A fix after ' +
      'implementation is a new task.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    input: {
      task_id: z.string().describe('"P4-T01", or "T01" when unique.'),
      status: z.string().optional().describe(TASK_STATUSES.join(' / ')),
      blockers: z.array(z.string()).optional(),
      notes: z.string().optional(),
      priority: z.string().optional().describe(PRIORITIES.join(' / ')),
      category: z.string().optional().describe(TASK_CATEGORIES.join(' / ')),
      blocked_by: z.array(z.string()).optional().describe('Task ids it waits for.'),
      new_task: z
        .object({
          phase: z.string().describe('e.g. "Phase 4".'),
          task_id: z.string().describe('e.g. "T02".'),
          name: z.string(),
          description: z.string().optional(),
          priority: z.string().optional(),
          category: z.string().optional(),
          blocked_by: z.array(z.string()).optional(),
        })
        .strict()
        .optional()
        .describe('Add this task instead of updating one.'),
      project: z.string().optional().describe('Default: the current project.'),
    },
    output: {
      success: z.boolean(),
      project: z.string(),
      task_id: z.string(),
      updated_fields: z.array(z.string()),
      message,
    },
    async run(args) {
      return updateProgress(engine, args);
    },
  });
}
