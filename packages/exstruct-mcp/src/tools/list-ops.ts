import { z } from 'zod';
import { defineTool } from '@mcp-workbench/core';
import { listOps } from '../patch/catalogue.js';

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
    'List every op exstruct_patch and exstruct_make accept, with required/optional fields, rules and an ' +
    'example each. Call it once before writing ops; exstruct_describe_op gives one op in full detail.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: {},
  output: { ops: z.array(z.object(opSummaryShape)) },
  async run() {
    return { ops: listOps() };
  },
});
