/** The first arguments that run the CLI instead of the server. */
export const CLI_COMMANDS = ['export', 'import', 'init-agents', 'auth', 'migrate'] as const;
