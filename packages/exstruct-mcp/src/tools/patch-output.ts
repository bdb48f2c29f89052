import path from 'node:path';
import { z } from 'zod';
import { ToolError, type PathPolicy } from '@mcp-workbench/core';
import { ON_CONFLICT_POLICIES } from '../output/on-conflict.js';
import { policyAllows } from '../output/output-path.js';
import type { PatchResult } from '../patch/run-patch.js';
import { fitEditAnswer } from './answer-size.js';
import { LISTED_OP_NAMES } from './op-names.js';

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const PatchValueSchema = z.object({
  kind: z.enum(['value', 'formula', 'sheet', 'style', 'dimension', 'chart']),
  value: scalar,
});

export const PatchDiffItemSchema = z.object({
  op_index: z.number().int(),
  op: z.string(),
  sheet: z.string(),
  cell: z.string().nullable(),
  before: PatchValueSchema.nullable(),
  after: PatchValueSchema.nullable(),
  status: z.enum(['applied', 'skipped']),
});

export const PatchErrorDetailSchema = z.object({
  op_index: z.number().int(),
  op: z.string(),
  sheet: z.string(),
  cell: z.string().nullable(),
  message: z.string(),
});

export const FormulaIssueSchema = z.object({
  sheet: z.string(),
  cell: z.string(),
  level: z.enum(['warning', 'error']),
  code: z.enum([
    'invalid_token',
    'ref_error',
    'name_error',
    'div0_error',
    'value_error',
    'na_error',
    'circular_ref_suspected',
  ]),
  message: z.string(),
});

/** The result shape shared by exstruct_patch and exstruct_make (spec 2, 6, 12.2). */
export const patchOutputShape = {
  out_path: z.string().describe('Where the workbook was (or, for dry_run/skip, would be) written.'),
  patch_diff: z.array(PatchDiffItemSchema),
  inverse_ops: z
    .array(z.looseObject({ op: z.string() }))
    .describe('Ops that undo the applied ones (return_inverse_ops=true).'),
  formula_issues: z.array(FormulaIssueSchema),
  warnings: z.array(z.string()),
  error: PatchErrorDetailSchema.nullable().describe(
    'Always null in a result: a failed op is an error result (code PATCH_FAILED) whose details hold this PatchErrorDetail.',
  ),
};

export const opsInput = z
  .array(
    z.union(
      [
        z.looseObject({ op: z.string() }),
        // For clients that cannot send objects (spec: ops given as JSON strings).
        z.string(),
      ],
      {
        error:
          'each op must be an object with "op", e.g. {"op":"set_value","sheet":"Sheet1","cell":"A1","value":1}, ' +
          'or a JSON string holding one; exstruct_list_ops lists the ops',
      },
    ),
  )
  .describe(
    'Objects such as {"op":"set_value","sheet":"Sheet1","cell":"A1","value":1} (or JSON strings of them). ' +
      `Ops: ${LISTED_OP_NAMES.join(', ')}. Fields and rules: exstruct_list_ops, exstruct_describe_op.`,
  );

export const commonEditInput = {
  on_conflict: z.enum(ON_CONFLICT_POLICIES).optional(),
  auto_formula: z
    .boolean()
    .default(false)
    .describe('Values starting with "=" become formulas (else they are refused).'),
  dry_run: z.boolean().default(false),
  return_inverse_ops: z.boolean().default(false),
  preflight_formula_check: z
    .boolean()
    .default(false)
    .describe(
      'Check the result for #REF!, #NAME?, unknown functions, bad syntax, cycles; errors block saving.',
    ),
};

/**
 * The answer of a patch: a failed op (or a failed formula check) is an error result — nothing was
 * written, and a client must see that — whose details keep the spec's PatchErrorDetail under `error`
 * with the formula issues and warnings; a success names the file it wrote. Paths are shown as the
 * client can pass them back (absolute, inside a root).
 */
export function shapeResult(result: PatchResult): PatchResult & { out_path: string } {
  if (result.error || result.out_path === null) {
    const error = result.error!;
    const where = error.cell ? ` at ${error.sheet}!${error.cell}` : error.sheet ? ` on "${error.sheet}"` : '';
    const details = { error, formula_issues: result.formula_issues, warnings: result.warnings };
    // The formula check found an error in a cell no op wrote: the patch broke what that formula refers to.
    if (error.op_index < 0)
      throw new ToolError(
        'PATCH_FAILED',
        `The formula check failed${where}, a formula no op wrote, so nothing was written: ${error.message}`,
        {
          hint: 'The patch broke what that formula refers to (a renamed or deleted sheet or name): fix it with set_formula in the same patch, or leave out the op that broke it.',
          details,
        },
      );
    throw new ToolError(
      'PATCH_FAILED',
      `op[${error.op_index}] ${error.op}${where} failed, so nothing was written: ${error.message}`,
      {
        hint: 'Fix that op (exstruct_describe_op explains each op) and send the whole patch again: ops apply all or nothing.',
        details,
      },
    );
  }
  // Written already: a result too large to send is cut to fit (each cut named in warnings).
  return fitEditAnswer({ ...result, out_path: path.normalize(result.out_path) });
}

/** The request fields of commonEditInput, and the server's file access and output policy, for an edit. */
export function commonEditOptions(
  args: {
    auto_formula: boolean;
    dry_run: boolean;
    return_inverse_ops: boolean;
    preflight_formula_check: boolean;
  },
  paths: PathPolicy,
) {
  return {
    autoFormula: args.auto_formula,
    dryRun: args.dry_run,
    returnInverseOps: args.return_inverse_ops,
    preflightFormulaCheck: args.preflight_formula_check,
    files: paths,
    outputAllowed: policyAllows(paths),
  };
}

export async function resolveOutput(paths: PathPolicy, target: string): Promise<string> {
  return paths.resolve(target, { kind: 'file' });
}
