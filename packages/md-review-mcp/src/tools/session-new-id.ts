import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { defineTool, reply } from '@mcp-workbench/core';

export const sessionNewIdTool = defineTool({
  name: 'session_new_id',
  title: 'New review session id',
  description:
    'A new session id (UUID) as plain text: pass it as resume_key to review_request, and keep it to resume ' +
    'that review.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  input: {},
  output: { resume_key: z.string().describe('A UUID v4, e.g. 550e8400-e29b-41d4-a716-446655440000.') },
  async run() {
    const id = randomUUID();
    // Spec 004: the output is the UUID itself, so the text block is just the id.
    return reply({ resume_key: id }, id);
  },
});
