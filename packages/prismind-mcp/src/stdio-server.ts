// The MCP server on stdio, which the bin starts for any arguments that are not a CLI command; the build
// bundles it with everything it imports (scripts/bundle-server.mjs).
import { runStdioServer, ToolError } from '@mcp-workbench/core';
import { confinementOf } from './config/confinement.js';
import { logFlagsOf } from './config/logging.js';
import { createServer } from './server.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js';

const FLAGS = {
  config: {
    type: 'string',
    valueName: '<file>',
    description: 'config.toml to read (default: $PRISMIND_HOME/config.toml).',
  },
} as const;

await runStdioServer({
  name: PACKAGE_NAME,
  version: PACKAGE_VERSION,
  description:
    'project knowledge for agents across sessions (projects, sessions, documents, catalog, progress, knowledge) ' +
    'in one local folder, over MCP stdio. Store: $PRISMIND_HOME (default ~/.local/share/prismind). ' +
    'Also: prismind-mcp export <project> <dir> | import <dir> | init-agents [<project>] | auth login|status | ' +
    'migrate --to postgres|local',
  flags: FLAGS,
  createServer: async ({ paths, logger, flags }) => {
    try {
      return await createServer({
        paths,
        logger,
        configFile: typeof flags.config === 'string' ? flags.config : undefined,
        // [log] of config.toml applies to the server's own log lines, command-line flags win.
        logFlags: logFlagsOf(process.argv.slice(2)),
        confinement: await confinementOf(process.argv.slice(2), FLAGS),
      });
    } catch (error) {
      // --root / --deny-glob that leave the store out: the server refuses to start.
      if (!(error instanceof ToolError)) throw error;
      process.stderr.write(`prismind-mcp: ${error.message}\n${error.hint ? `${error.hint}\n` : ''}`);
      process.exit(2);
    }
  },
});
