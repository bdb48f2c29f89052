import { runStdioServer } from '@mcp-workbench/core';
import { ON_CONFLICT_POLICIES, type OnConflict } from './output/on-conflict.js';
import { createServer } from './server.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js';

await runStdioServer({
  name: PACKAGE_NAME,
  version: PACKAGE_VERSION,
  description: 'read Excel workbooks into JSON/TOON/YAML and edit them safely, over MCP stdio',
  flags: {
    'on-conflict': {
      type: 'string',
      choices: ON_CONFLICT_POLICIES,
      // No default: unset, a tool replaces only its own earlier output and writes name_1 beside
      // anything else. Overwriting a file the server did not write must be asked for.
      valueName: '<policy>',
      description:
        'What extract/patch/make do when the output file exists: overwrite | skip | rename ' +
        '(default: replace only their own earlier output, else write name_1).',
    },
  },
  createServer: ({ paths, logger, flags }) =>
    createServer({
      paths,
      logger,
      ...(flags['on-conflict'] === undefined ? {} : { onConflict: flags['on-conflict'] as OnConflict }),
    }),
});
