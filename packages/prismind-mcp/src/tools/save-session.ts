import { defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import type { Engine } from '../engine/engine.js';
import { saveSession } from '../engine/sessions.js';
import { saveInput } from './end-session.js';
import { message } from './schemas.js';

export function saveSessionTool(engine: Engine) {
  return defineTool({
    name: 'save_session',
    title: 'Save the session',
    description:
      'Save the session state without ending the session (end_session ends it). The server also saves by ' +
      'itself every few tool calls and under context pressure.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: saveInput,
    output: { success: z.boolean(), saved_to: z.array(z.string()), message },
    async run(args) {
      return saveSession(engine, args);
    },
  });
}
