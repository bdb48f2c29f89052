// Audit defect 9: a binary file named .md is refused like a .txt file is, with a clear error.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { planArgs, useAgentSession } from './agent-session.js';

const ctx = useAgentSession();

it.each([
  ['NUL bytes', Buffer.from([0x23, 0x20, 0x41, 0x00, 0x42, 0x0a])],
  ['invalid UTF-8', Buffer.from([0x23, 0x20, 0xff, 0xfe, 0xc3, 0x28, 0x0a])],
  ['a PNG', Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')],
])('refuses a .md file holding %s as "Invalid path: … not a text file"', async (_, bytes) => {
  await writeFile(path.join(ctx.ws.root, 'docs', 'binary.md'), bytes);
  const outcome = await ctx.mcp.call('review_request', planArgs(ctx.ws.root, { files: ['docs/binary.md'] }));
  expect(outcome.isError).toBe(true);
  expect(outcome.text).toContain('INVALID_ARGUMENT');
  expect(outcome.text).toMatch(/Invalid path: docs\/binary\.md is not a text file/);
});

it('takes UTF-8 text with a BOM and Japanese', async () => {
  await writeFile(path.join(ctx.ws.root, 'docs', 'bom.md'), '\ufeff# 見出し\n\n本文。\n');
  const outcome = await ctx.mcp.call(
    'review_request',
    planArgs(ctx.ws.root, { files: ['docs/bom.md'], wait_seconds: 1 }),
  );
  expect(outcome.text).toContain('"status":"pending"');
});
