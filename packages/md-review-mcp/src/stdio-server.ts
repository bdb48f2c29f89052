import { runStdioServer } from '@mcp-workbench/core';
import { linkCommand } from './link-command.js';
import { createServer, DEFAULT_WAIT_SECONDS } from './server.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js';

function waitSeconds(value: string | boolean | string[] | undefined): number {
  if (value === undefined) return DEFAULT_WAIT_SECONDS;
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < 0) {
    process.stderr.write(
      `${PACKAGE_NAME}: --wait-seconds must be a whole number ≥ 0 (0 = no limit); got "${typeof value === 'string' ? value : ''}".\n`,
    );
    process.exit(2);
  }
  return seconds;
}

if (process.argv[2] === 'link') {
  // `md-review-mcp link`: the person's links, for a terminal (not the MCP server).
  process.exitCode = await linkCommand(process.argv.slice(3), process.env, (line) =>
    process.stdout.write(`${line}\n`),
  );
} else {
  await startServer();
}

async function startServer(): Promise<void> {
  // A client that goes away (stdin closed) while a call waits for the person: the call answers pending
  // and the server ends, instead of keeping the page alive for nobody.
  const clientGone = new AbortController();
  const gone = () => clientGone.abort();
  process.stdin.once('end', gone);
  process.stdin.once('close', gone);
  await runStdioServer({
    name: PACKAGE_NAME,
    version: PACKAGE_VERSION,
    description:
      'a person reviews Markdown for an agent (review page on 127.0.0.1, desktop app or browser), over MCP stdio',
    flags: {
      'no-open': {
        type: 'boolean',
        description: 'Do not open the desktop app or a browser; only print the review URL to stderr.',
      },
      'wait-seconds': {
        type: 'string',
        valueName: '<n>',
        default: String(DEFAULT_WAIT_SECONDS),
        description:
          'How long review_request waits before answering status "pending" (0 = until the person finishes).',
      },
      home: {
        type: 'string',
        valueName: '<dir>',
        description: 'Where sessions are kept (default: $MD_REVIEW_HOME or the per-user data folder).',
      },
    },
    createServer: ({ paths, logger, flags }) =>
      createServer({
        paths,
        logger,
        openMode: flags['no-open'] === true ? 'none' : 'auto',
        waitSeconds: waitSeconds(flags['wait-seconds']),
        ...(typeof flags.home === 'string' ? { home: flags.home } : {}),
        clientGone: clientGone.signal,
        // The URL must reach the person whatever the log level: it goes straight to stderr.
        announce: (line) => process.stderr.write(`${line}\n`),
      }),
  });
}
