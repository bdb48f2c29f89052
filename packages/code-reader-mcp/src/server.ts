import { createToolServer, trackCalls, type Logger, type ServerRuntime } from '@mcp-workbench/core';
import type { IdlePreparation } from './start/prepare.js';
import { createToolDeps } from './tools/deps.js';
import { ANSWERS_HELP, HELP_URI } from './help/answers.js';
import { builtToolSchemas } from './tool-schemas.js';
import { allTools } from './tools/index.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js';

export type CodeReaderServerOptions = Pick<ServerRuntime, 'paths'> & {
  logger?: Logger;
  /** Also send structuredContent and declare outputSchema (`--structured-output`). */
  structuredOutput?: boolean;
  /** Told when the handshake is done and when each call starts and ends (the stdio bin's idle work). */
  idle?: Pick<IdlePreparation, 'handshakeDone' | 'callStarted' | 'callEnded'>;
};

// Said once here, not in every tool's description (issue 22): the paths, the formats, the pages, and where
// the answers' layout is described in full.
const INSTRUCTIONS =
  'Read large codebases with few tokens: list_files and search_content (ripgrep) to find things, ' +
  'check_code_scale / get_code_outline to size up a file, then extract_code_section for just the lines you need. ' +
  'Paths are relative to the project directory (or absolute inside a root). Answers are compact text by default; ' +
  'output_format "json" gives every field. Long answers come in pages: pass next_cursor as cursor. ' +
  `How each answer reads, note by note: the resource ${HELP_URI}.`;

/** One server instance: its own project directory, search cache and cursors. */
export function createServer(options: CodeReaderServerOptions) {
  const server = createToolServer(
    {
      name: PACKAGE_NAME,
      version: PACKAGE_VERSION,
      title: 'Code Reader — token-efficient reading of large codebases',
      instructions: INSTRUCTIONS,
    },
    options.idle
      ? allTools(createToolDeps()).map((tool) => trackCalls(tool, options.idle!))
      : allTools(createToolDeps()),
    {
      paths: options.paths,
      ...(options.logger ? { logger: options.logger } : {}),
      structuredOutput: options.structuredOutput === true,
      schemas: builtToolSchemas(),
    },
  );
  server.registerResource(
    'answers-help',
    HELP_URI,
    {
      title: 'How code-reader answers read',
      description: "The layout of every tool's default text answer, its notes, paging and error codes.",
      mimeType: 'text/markdown',
    },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: ANSWERS_HELP }] }),
  );
  if (options.idle) {
    const idle = options.idle;
    const previous = server.server.oninitialized;
    server.server.oninitialized = () => {
      previous?.();
      idle.handshakeDone();
    };
  }
  return server;
}
