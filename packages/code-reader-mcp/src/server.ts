import { createToolServer, type Logger, type ServerRuntime } from '@mcp-workbench/core';
import { createToolDeps } from './tools/deps.js';
import { builtToolSchemas } from './tool-schemas.js';
import { allTools } from './tools/index.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js';

export type CodeReaderServerOptions = Pick<ServerRuntime, 'paths'> & {
  logger?: Logger;
  /** Also send structuredContent and declare outputSchema (`--structured-output`). */
  structuredOutput?: boolean;
};

const INSTRUCTIONS =
  'Read large codebases with few tokens: list_files and search_content (ripgrep) to find things, ' +
  'check_code_scale / get_code_outline to size up a file, then extract_code_section for just the lines you need. ' +
  'Answers are TOON by default; pass output_format "json" for JSON. Long answers come in pages: pass next_cursor as cursor.';

/** One server instance: its own project directory, search cache and cursors. */
export function createServer(options: CodeReaderServerOptions) {
  return createToolServer(
    {
      name: PACKAGE_NAME,
      version: PACKAGE_VERSION,
      title: 'Code Reader — token-efficient reading of large codebases',
      instructions: INSTRUCTIONS,
    },
    allTools(createToolDeps()),
    {
      paths: options.paths,
      ...(options.logger ? { logger: options.logger } : {}),
      structuredOutput: options.structuredOutput === true,
      schemas: builtToolSchemas(),
    },
  );
}
