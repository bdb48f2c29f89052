import { z } from 'zod';
import { defineTool } from '@mcp-workbench/core';
import { loadEditEngine } from './load-edit-engine.js';

export const opSummaryShape = {
  op: z.string(),
  description: z.string(),
  required: z.array(z.string()),
  optional: z.array(z.string()),
  rules: z.array(z.string()),
  example: z.record(z.string(), z.unknown()),
};

export const listOpsTool = defineTool({
  name: 'exstruct_list_ops',
  title: 'List edit ops',
  description:
    'List the ops of exstruct_patch/exstruct_make: fields, rules and an example each. Call it before ' +
    'writing ops.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: {},
  output: { ops: z.array(z.object(opSummaryShape)) },
  async run() {
    const { listOps } = await loadEditEngine();
    return { ops: listOps() };
  },
});
