#!/usr/bin/env node
import { startSpareJobThread } from './jobs/spare-thread.js';

// The extraction thread starts first, so it loads and warms up on the other core while the modules
// below load (a fresh server's first extraction then runs warm code); --help and --version need none.
const infoOnly = process.argv.slice(2).some((arg) => ['--help', '-h', '--version', '-v'].includes(arg));
if (!infoOnly) startSpareJobThread();
const { runStdioServer } = await import('@mcp-workbench/core');
const { ON_CONFLICT_POLICIES } = await import('./output/on-conflict.js');
const { createServer } = await import('./server.js');
const { PACKAGE_NAME, PACKAGE_VERSION } = await import('./version.js');
type OnConflict = import('./output/on-conflict.js').OnConflict;

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
