import { ToolError } from '@mcp-workbench/core/engine';
import { OP_NAMES, OP_SCHEMAS, type OpName, type PatchOp } from './op-schemas.js';

const OBJECT_EXAMPLE = '{"op":"set_value","sheet":"Sheet1","cell":"A1","value":"Hello"}';

/**
 * Turns the `ops` argument into validated ops. Each element may be an object (preferred) or a JSON
 * string holding one object (spec 14: some clients send strings). Errors name `ops[i]`.
 */
export function parseOps(raw: readonly unknown[]): PatchOp[] {
  return raw.map((item, index) => validateOp(index, decodeOp(index, item)));
}

function decodeOp(index: number, item: unknown): Record<string, unknown> {
  if (typeof item === 'string') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(item);
    } catch (error) {
      throw new ToolError(
        'INVALID_ARGUMENT',
        `ops[${index}] is not valid JSON: ${(error as Error).message}`,
        {
          hint: `Send each op as a JSON object (preferred), e.g. ${OBJECT_EXAMPLE}, or as a string holding exactly such an object.`,
          details: { op_index: index },
        },
      );
    }
    if (!isObject(parsed)) {
      throw new ToolError(
        'INVALID_ARGUMENT',
        `ops[${index}] must be a JSON object (JSON object required), got ${kindOf(parsed)}.`,
        {
          hint: `Example: ${OBJECT_EXAMPLE}`,
          details: { op_index: index },
        },
      );
    }
    return parsed;
  }
  if (!isObject(item)) {
    throw new ToolError(
      'INVALID_ARGUMENT',
      `ops[${index}] must be an object (JSON object required), got ${kindOf(item)}.`,
      {
        hint: `Example: ${OBJECT_EXAMPLE}`,
        details: { op_index: index },
      },
    );
  }
  return item;
}

function validateOp(index: number, item: Record<string, unknown>): PatchOp {
  const name = item.op;
  if (typeof name !== 'string' || !(OP_NAMES as string[]).includes(name)) {
    throw new ToolError(
      'INVALID_ARGUMENT',
      `ops[${index}].op ${typeof name === 'string' ? `"${name}" is not a known op` : 'is missing'}.`,
      {
        hint: `Valid ops: ${OP_NAMES.join(', ')}. exstruct_describe_op shows each op's fields and an example.`,
        details: { op_index: index },
      },
    );
  }
  const schema = OP_SCHEMAS[name as OpName];
  const parsed = schema.safeParse(item);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys')
      return `unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
    const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
    return `${where}${issue.message}`;
  });
  const fields = Object.keys(schema.shape).filter((k) => k !== 'op');
  throw new ToolError('INVALID_ARGUMENT', `ops[${index}] (${name}): ${problems.join('; ')}.`, {
    hint: `Fields of ${name}: ${fields.join(', ')}. exstruct_describe_op {"op":"${name}"} shows rules and an example.`,
    details: {
      op_index: index,
      op: name,
      sheet: typeof item.sheet === 'string' ? item.sheet : null,
      cell: typeof item.cell === 'string' ? item.cell : typeof item.range === 'string' ? item.range : null,
    },
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return `a ${typeof value}`;
}
