#!/usr/bin/env node
// `code-reader`: the command line of code-reader-mcp. It calls the very same tool code as the server.
import { CLI_HELP, CliUsageError, parseCliArgs } from './cli/args.js';
import { runCli } from './cli/run.js';
import { PACKAGE_VERSION } from './version.js';

let exitCode: number;
try {
  const options = parseCliArgs(process.argv.slice(2));
  if (options.help) {
    process.stdout.write(CLI_HELP);
    exitCode = 0;
  } else if (options.version) {
    process.stdout.write(`${PACKAGE_VERSION}\n`);
    exitCode = 0;
  } else {
    exitCode = await runCli(options, {
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
      cwd: process.cwd(),
    });
  }
} catch (error) {
  if (!(error instanceof CliUsageError)) throw error;
  process.stderr.write(`code-reader: ${error.message}\nRun code-reader --help for usage.\n`);
  exitCode = 2;
}
process.exitCode = exitCode;
