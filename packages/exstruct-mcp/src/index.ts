#!/usr/bin/env node
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
      default: 'overwrite',
      valueName: '<policy>',
      description: 'What extract/patch do when the output file exists: overwrite | skip | rename.',
    },
  },
  createServer: ({ paths, logger, flags }) =>
    createServer({ paths, logger, onConflict: flags['on-conflict'] as OnConflict }),
});
