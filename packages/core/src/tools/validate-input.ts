import { z } from 'zod';
import { ToolError } from '../errors.js';

function describePath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'arguments';
  return path
    .map((part, index) =>
      typeof part === 'number' ? `[${part}]` : index === 0 ? String(part) : `.${String(part)}`,
    )
    .join('');
}

/**
 * Parses tool arguments and turns zod's issues into one INVALID_ARGUMENT error that names each bad
 * field and lists the valid argument names, so an agent can fix the call in one retry.
 */
export function parseToolArguments<T>(
  toolName: string,
  schema: z.ZodObject<z.ZodRawShape>,
  args: unknown,
): T {
  const parsed = schema.safeParse(args ?? {});
  if (parsed.success) return parsed.data as T;
  const valid = Object.keys(schema.shape);
  // An unknown key inside an object argument is named with its place, and that object's fields listed.
  const nested: string[] = [];
  const problems = parsed.error.issues.map((issue) => {
    if (issue.code !== 'unrecognized_keys') return `${describePath(issue.path)}: ${issue.message}`;
    const keys = issue.keys.map((k) => `"${k}"`).join(', ');
    if (issue.path.length === 0) return `unknown argument(s) ${keys}`;
    const where = describePath(issue.path);
    const fields = fieldsAt(schema, issue.path);
    if (fields) nested.push(`Valid fields of ${where}: ${fields.join(', ')}.`);
    return `unknown field(s) ${keys} in ${where}`;
  });
  const arguments_ = valid.length ? `Valid arguments: ${valid.join(', ')}.` : 'This tool takes no arguments.';
  throw new ToolError('INVALID_ARGUMENT', `Invalid arguments for ${toolName}: ${problems.join('; ')}.`, {
    hint: `${[...nested, arguments_].join(' ')} See the tool's input schema for types and defaults.`,
    details: {
      issues: parsed.error.issues.map((issue) => ({
        path: describePath(issue.path),
        message: issue.message,
      })),
    },
  });
}

/** The field names of the object found at `path` in the arguments' schema (through optional, default, array). */
function fieldsAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] | undefined {
  let at: z.ZodType | undefined = schema;
  for (const part of [...path, undefined]) {
    // Look through wrappers (optional, nullable, default, pipes) to the object or array inside.
    for (let depth = 0; at && depth < 8; depth++) {
      const def: { innerType?: z.ZodType; in?: z.ZodType } | undefined = (
        at as { _zod?: { def?: { innerType?: z.ZodType; in?: z.ZodType } } }
      )._zod?.def;
      const inner: z.ZodType | undefined = def?.innerType ?? def?.in;
      if (!inner || at instanceof z.ZodObject || at instanceof z.ZodArray) break;
      at = inner;
    }
    if (part === undefined) break;
    if (at instanceof z.ZodObject) at = (at.shape as Record<string, z.ZodType>)[String(part)];
    else if (at instanceof z.ZodArray) at = at.element as z.ZodType;
    else return undefined;
  }
  return at instanceof z.ZodObject ? Object.keys(at.shape) : undefined;
}
