// The stdio server itself; src/index.ts (the bin) enables the compile cache, then imports this.
import { runStdioServer } from '@mcp-workbench/core';
import { createServer } from './server.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js';

await runStdioServer({
  name: PACKAGE_NAME,
  version: PACKAGE_VERSION,
  description: 'token-efficient reading of large codebases (ripgrep + tree-sitter), over MCP stdio',
  createServer: ({ paths, logger }) => createServer({ paths, logger }),
});
