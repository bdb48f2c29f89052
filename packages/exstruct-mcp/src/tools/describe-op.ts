import { z } from 'zod';
import { defineTool, ToolError } from '@mcp-workbench/core';
import { loadEditEngine } from './load-edit-engine.js';
import { opSummaryShape } from './list-ops.js';

export const describeOpTool = defineTool({
  name: 'exstruct_describe_op',
  title: 'Describe an edit op',
  description:
    "One op of exstruct_patch/exstruct_make in full: each field's meaning, rules, an example, its JSON Schema.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: {
    op: z.string().min(1),
  },
  output: {
    ...opSummaryShape,
    fields: z.array(z.object({ name: z.string(), required: z.boolean(), description: z.string() })),
    json_schema: z.record(z.string(), z.unknown()),
  },
  async run(args) {
    const { describeOp, OP_NAMES } = await loadEditEngine();
    const description = describeOp(args.op.trim());
    if (!description) {
      throw new ToolError('NOT_FOUND', `Unknown op "${args.op}".`, {
        hint: `Known ops: ${OP_NAMES.join(', ')}.`,
      });
    }
    return description;
  },
});
