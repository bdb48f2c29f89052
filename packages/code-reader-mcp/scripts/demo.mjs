// A short tour of code-reader-mcp over stdio on the bundled sample project (13 languages).
// Run after `pnpm --filter code-reader-mcp build`: node packages/code-reader-mcp/scripts/demo.mjs
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { callTool, spawnStdioClient } from '@mcp-workbench/core/testing';

const here = path.dirname(fileURLToPath(import.meta.url));
const sample = path.resolve(here, '../test/fixtures/sample-project');
const server = path.resolve(here, '../dist/index.cjs');

const client = await spawnStdioClient(process.execPath, [server, '--root', sample, '--log-level', 'warn']);
const show = async (title, name, args) => {
  const result = await callTool(client.client, name, args);
  console.log(`\n--- ${title}\n> ${name} ${JSON.stringify(args)}\n${result.text}`);
  if (result.isError) process.exitCode = 1;
};
try {
  const { tools } = await client.client.listTools();
  console.log(`code-reader-mcp on ${sample}: ${tools.length} tools (${tools.map((t) => t.name).join(', ')})`);
  await show('Which files are there?', 'list_files', { extensions: ['ts', 'tsx', 'py'] });
  await show('Where is "amount" used, per file?', 'search_content', {
    query: 'amount',
    count_only_matches: true,
  });
  await show('The same, with one line of context', 'search_content', {
    query: 'amount',
    files: ['src/ts/service.ts'],
    context_after: 1,
  });
  await show('How big is a file, and where is it complex?', 'check_code_scale', {
    file_path: 'src/ts/service.ts',
  });
  await show('Its outline', 'get_code_outline', { file_path: 'src/ts/service.ts' });
  await show('Just the lines needed, from two files at once', 'extract_code_section', {
    requests: [
      { file_path: 'src/ts/service.ts', sections: [{ start_line: 16, end_line: 26, label: 'total' }] },
      { file_path: 'src/py/inventory.py', sections: [{ start_line: 14, end_line: 18, label: 'restock' }] },
    ],
  });
  await show('Metrics of many files in one call', 'check_code_scale', {
    file_paths: ['src/go/server.go', 'src/rust/lib.rs', 'src/c/buffer.c', 'src/sh/deploy.sh', 'notes.txt'],
    metrics_only: true,
  });
} finally {
  await client.close();
}
