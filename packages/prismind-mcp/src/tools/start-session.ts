import { defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import type { Engine } from '../engine/engine.js';
import { startSession } from '../engine/sessions.js';
import { docReference, message } from './schemas.js';

export function startSessionTool(engine: Engine) {
  return defineTool({
    name: 'start_session',
    title: 'Start a session',
    description:
      'Call first in every conversation about a project. Returns the saved session (last_summary, next_action, ' +
      'blockers, notes), the current phase/task from the progress table (differences corrected and reported) and ' +
      'documents to read, each with a reason. Makes the project current.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    input: {
      project: z.string().optional().describe('Default: the current project.'),
      user: z.string().optional().describe('Default: session.default_user, PRISMIND_USER or the OS account.'),
    },
    output: {
      project: z.string(),
      project_name: z.string(),
      user: z.string(),
      started_at: z.string(),
      current_phase: z.string().describe('e.g. "Phase 4".'),
      current_task: z.string().describe('e.g. "T01: BTノード生成".'),
      last_completed: z.string().describe('e.g. "P3-T12: WeaponSystem統合".'),
      blockers: z.array(z.string()),
      recommended_docs: z.array(docReference),
      notes: z.string().describe('Hand-over notes saved at the end of the last session.'),
      last_summary: z.string().describe("Summary of the last session's work."),
      next_action: z.string().describe('What the last session said to do next.'),
      handover_from: z
        .string()
        .optional()
        .describe("For a user new to the project: who saved the team's last handover shown here."),
      handover_saved_at: z.string().optional().describe('When that handover was saved.'),
      newer_handover_from: z
        .string()
        .optional()
        .describe(
          'For a user with a state of their own: a teammate who saved a handover after it (read it too).',
        ),
      newer_handover_saved_at: z.string().optional().describe("When that teammate's handover was saved."),
      newer_handover_next_action: z.string().optional().describe("That handover's next action."),
      message,
    },
    async run(args) {
      return startSession(engine, args);
    },
  });
}
