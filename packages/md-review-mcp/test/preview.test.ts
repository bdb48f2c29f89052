// Audit item 10: the README and the answer agree on `anchor.preview` — the commented lines' first 200
// characters (code points), followed by "…" when they were cut.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import type { ReviewResult } from '../src/review/types.js';
import { startReview, useAgentSession } from './agent-session.js';
import { answer } from './helpers.js';

const ctx = useAgentSession();

it('previews the first 200 characters of long lines, then "…"; short lines whole', async () => {
  const long = '長'.repeat(150) + 'x'.repeat(100); // 250 code points
  await writeFile(path.join(ctx.ws.root, 'docs', 'long-line.md'), `# Title\n\n${long}\n`);
  const { call, person } = await startReview(ctx.mcp, ctx.ws.root, { files: ['docs/long-line.md'] });
  await person.comment(0, 3, 3, 'Too long.');
  await person.comment(0, 1, 1, 'Fine.');
  await person.finalize();
  const [title, line] = answer<ReviewResult>(await call).inline_comments;
  expect(title!.anchor.preview).toBe('# Title');
  expect(line!.anchor.preview).toBe(`${'長'.repeat(150)}${'x'.repeat(50)}…`);
  expect(Array.from(line!.anchor.preview)).toHaveLength(201);
});
