import { z } from 'zod';
import { defineTool, ToolError } from '@mcp-workbench/core';
import { describeOp } from '../patch/catalogue.js';
import { OP_NAMES } from '../patch/op-schemas.js';
import { opSummaryShape } from './list-ops.js';

export const describeOpTool = defineTool({
  name: 'exstruct_describe_op',
  title: 'Describe an edit op',
  description:
    'Show one op of exstruct_patch/exstruct_make in full: every field with its meaning, rules, an example ' +
    'and the JSON Schema the server validates it with. Example: {"op":"fill_formula"}.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: {
    op: z
      .string()
      .min(1)
      .describe(`The op name: ${OP_NAMES.join(', ')}.`),
  },
  output: {
    ...opSummaryShape,
    fields: z.array(z.object({ name: z.string(), required: z.boolean(), description: z.string() })),
    json_schema: z.record(z.string(), z.unknown()),
  },
  async run(args) {
    const description = describeOp(args.op.trim());
    if (!description) {
      throw new ToolError('NOT_FOUND', `Unknown op "${args.op}".`, {
        hint: `Known ops: ${OP_NAMES.join(', ')}.`,
      });
    }
    return description;
  },
});
