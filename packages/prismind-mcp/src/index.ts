#!/usr/bin/env node
// The bin: `prismind-mcp export|import|init-agents …` runs the CLI (without loading the MCP server);
// anything else starts the MCP server on stdio: the build's bundle of it where there is one
// (scripts/bundle-server.mjs: one file costs less time and memory than its ~290 modules), else its
// modules (running from src).
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
const { CLI_COMMANDS, unknownCommand } = await import('./cli-commands.js');
const unknown = unknownCommand(
  argv[0],
  (p) => statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false,
);
if (unknown) {
  process.stderr.write(unknown);
  process.exitCode = 2;
} else if ((CLI_COMMANDS as readonly string[]).includes(argv[0] ?? '')) {
  const { runCli } = await import('./cli.js');
  process.exitCode = await runCli(argv, {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
} else {
  const bundle = new URL('./stdio-bundle/stdio-server.js', import.meta.url);
  await (existsSync(fileURLToPath(bundle)) ? import(bundle.href) : import('./stdio-server.js'));
}
