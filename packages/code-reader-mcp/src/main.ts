// The stdio server itself, bundled as dist/server-bundle.cjs; src/index.ts (the bin) loads it.
import { runStdioServer } from '@mcp-workbench/core';
import { createServer } from './server.js';
import { IdlePreparation } from './start/prepare.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js';

export async function main(): Promise<void> {
  const idle = new IdlePreparation();
  await runStdioServer({
    name: PACKAGE_NAME,
    version: PACKAGE_VERSION,
    description: 'token-efficient reading of large codebases (ripgrep + tree-sitter), over MCP stdio',
    createServer: ({ paths, logger }) => createServer({ paths, logger, idle }),
  });
}
