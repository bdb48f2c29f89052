/** The first arguments that run the CLI instead of the server. */
export const CLI_COMMANDS = ['export', 'import', 'init-agents', 'auth', 'migrate'] as const;

/**
 * The error for a first argument that is neither a command nor a flag nor an existing folder (a root):
 * `prismind-mcp exprt foo` is a typo, not a root folder named "exprt". Undefined when it is fine.
 */
export function unknownCommand(first: string | undefined, isDir: (p: string) => boolean): string | undefined {
  if (first === undefined || first.startsWith('-')) return undefined;
  if ((CLI_COMMANDS as readonly string[]).includes(first) || isDir(first)) return undefined;
  return (
    `prismind-mcp: unknown command '${first}'. Commands: ${CLI_COMMANDS.join(', ')}; ` +
    'without a command the MCP server starts on stdio (see --help).\n'
  );
}
