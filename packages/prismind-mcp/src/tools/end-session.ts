import { defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import type { Engine } from '../engine/engine.js';
import { endSession } from '../engine/sessions.js';
import { message } from './schemas.js';

export const saveInput = {
  summary: z.string().optional().describe('What this session did.'),
  next_action: z.string().optional().describe('What to do next (shown by the next start_session).'),
  blockers: z.array(z.string()).optional().describe('Replaces the saved list.'),
  notes: z.string().optional().describe('Hand-over notes.'),
};

export function endSessionTool(engine: Engine) {
  return defineTool({
    name: 'end_session',
    title: 'End the session',
    description:
      'Save the session state and end the session. Give summary and next_action so the next session picks ' +
      'up where this one ended.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    input: saveInput,
    output: {
      success: z.boolean(),
      session_duration: z.string().describe('ISO 8601 duration since start_session, e.g. "PT1H23M45S".'),
      session_duration_seconds: z.number(),
      saved_to: z.array(z.string()).describe('Where the state was written (relative to the store folder).'),
      message,
    },
    async run(args) {
      return endSession(engine, args);
    },
  });
}
