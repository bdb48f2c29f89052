#!/usr/bin/env node
// The bin: `prismind-mcp export|import|init-agents …` runs the CLI (without loading the MCP server);
// anything else starts the MCP server on stdio.
const argv = process.argv.slice(2);
const { CLI_COMMANDS } = await import('./cli-commands.js');
if ((CLI_COMMANDS as readonly string[]).includes(argv[0] ?? '')) {
  const { runCli } = await import('./cli.js');
  process.exitCode = await runCli(argv, {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
} else {
  const { runStdioServer } = await import('@mcp-workbench/core');
  const { createServer } = await import('./server.js');
  const { logFlagsOf } = await import('./config/logging.js');
  const { PACKAGE_NAME, PACKAGE_VERSION } = await import('./version.js');
  await runStdioServer({
    name: PACKAGE_NAME,
    version: PACKAGE_VERSION,
    description:
      'project knowledge for agents across sessions (projects, sessions, documents, catalog, progress, knowledge) ' +
      'in one local folder, over MCP stdio. Store: $PRISMIND_HOME (default ~/.local/share/prismind). ' +
      'Also: prismind-mcp export <project> <dir> | import <dir> | init-agents [<project>] | auth login|status | ' +
      'migrate --to postgres|local',
    flags: {
      config: {
        type: 'string',
        valueName: '<file>',
        description: 'config.toml to read (default: $PRISMIND_HOME/config.toml).',
      },
    },
    createServer: ({ paths, logger, flags }) =>
      createServer({
        paths,
        logger,
        configFile: typeof flags.config === 'string' ? flags.config : undefined,
        // [log] of config.toml applies to the server's own log lines, command-line flags win.
        logFlags: logFlagsOf(argv),
      }),
  });
}
