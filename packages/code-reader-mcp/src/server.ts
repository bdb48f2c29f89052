import { createToolServer, type ServerRuntime } from '@mcp-workbench/core';
import { allTools } from './tools/index.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js';

export type CodeReaderServerOptions = Pick<ServerRuntime, 'paths' | 'logger'>;

export function createServer(options: CodeReaderServerOptions) {
  return createToolServer(
    {
      name: PACKAGE_NAME,
      version: PACKAGE_VERSION,
      title: 'Code Reader — token-efficient reading of large codebases',
    },
    allTools(),
    { paths: options.paths, ...(options.logger ? { logger: options.logger } : {}) },
  );
}
