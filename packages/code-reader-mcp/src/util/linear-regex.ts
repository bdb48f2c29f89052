import { createRequire } from 'node:module';
import { ToolError } from '@mcp-workbench/core/engine';

/** A compiled pattern that answers "does it occur in this text?". */
export interface TextTest {
  test(text: string): boolean;
}

let re2: typeof import('re2js') | undefined;

/** re2js (250 kB of Unicode tables) loads on the first pattern, not with the server: start time, issue 13. */
function loadRe2(): typeof import('re2js') {
  re2 ??= createRequire(import.meta.url)('re2js') as typeof import('re2js');
  return re2;
}

/**
 * Compiles a caller's regular expression for a linear-time engine (RE2: the syntax of ripgrep's queries,
 * without look-around or backreferences). JavaScript's backtracking engine would let a pattern such as
 * `(a+)+$` block the whole server for seconds on one file name; RE2 cannot. Errors name the field.
 */
export function compileLinearRegex(pattern: string, what: string, example: string): TextTest {
  const { RE2JS } = loadRe2();
  try {
    return RE2JS.compile(pattern);
  } catch (error) {
    throw new ToolError(
      'INVALID_ARGUMENT',
      `${what} is not a valid regular expression: ${(error as Error).message}`,
      {
        hint: `Use RE2/ripgrep regex syntax (no look-around or backreferences), e.g. ${example}.`,
      },
    );
  }
}
