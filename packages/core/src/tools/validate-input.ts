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
  const problems = parsed.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return `unknown argument(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
    }
    return `${describePath(issue.path)}: ${issue.message}`;
  });
  throw new ToolError('INVALID_ARGUMENT', `Invalid arguments for ${toolName}: ${problems.join('; ')}.`, {
    hint: `Valid arguments: ${valid.join(', ')}. See the tool's input schema for types and defaults.`,
    details: {
      issues: parsed.error.issues.map((issue) => ({
        path: describePath(issue.path),
        message: issue.message,
      })),
    },
  });
}
