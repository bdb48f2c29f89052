import { z } from 'zod';
import { OP_EXAMPLES, OP_NAMES, OP_RULES, OP_SCHEMAS, type OpName } from './op-schemas.js';

export interface OpSummary {
  op: string;
  description: string;
  required: string[];
  optional: string[];
  rules: string[];
  example: Record<string, unknown>;
}

export interface OpDescription extends OpSummary {
  fields: { name: string; required: boolean; description: string }[];
  json_schema: Record<string, unknown>;
}

/** The ops catalogue, generated from the very schemas the engine validates ops with. */
export function listOps(): OpSummary[] {
  return OP_NAMES.map((name) => summary(name));
}

export function describeOp(name: string): OpDescription | undefined {
  if (!(OP_NAMES as string[]).includes(name)) return undefined;
  const op = name as OpName;
  const schema = OP_SCHEMAS[op];
  const fields = Object.entries(schema.shape as Record<string, z.ZodType>)
    .filter(([key]) => key !== 'op')
    .map(([key, field]) => ({
      name: key,
      required: !acceptsUndefined(field),
      description: field.description ?? '',
    }));
  return {
    ...summary(op),
    fields,
    json_schema: z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }),
  };
}

function summary(op: OpName): OpSummary {
  const schema = OP_SCHEMAS[op];
  const entries = Object.entries(schema.shape as Record<string, z.ZodType>).filter(([key]) => key !== 'op');
  return {
    op,
    description: schema.description ?? '',
    required: entries.filter(([, f]) => !acceptsUndefined(f)).map(([k]) => k),
    optional: entries.filter(([, f]) => acceptsUndefined(f)).map(([k]) => k),
    rules: OP_RULES[op] ?? [],
    example: OP_EXAMPLES[op],
  };
}

function acceptsUndefined(field: z.ZodType): boolean {
  return field.safeParse(undefined).success;
}

/**
 * The op names a model is offered in the tool list (fields and rules are fetched on demand with
 * exstruct_list_ops / exstruct_describe_op). restore_design_snapshot is left out: it only appears in
 * inverse ops the server hands back.
 */
export function listedOpNames(): string[] {
  return OP_NAMES.filter((name) => name !== 'restore_design_snapshot');
}
