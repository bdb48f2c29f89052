// list_files stats a row only when someone reads its size or time (issue 25: 10,000 lstat calls for a
// text page that shows a few hundred paths cost more than ripgrep's walk).
import * as fs from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connect, emptyDir, removeDir } from './helpers.js';

vi.mock('node:fs', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:fs')>();
  return { ...original, lstatSync: vi.fn(original.lstatSync) };
});

/** lstat calls on the listed files (the policy's one lstat of each folder is not a row's). */
const lstatCalls = () =>
  vi
    .mocked(fs.lstatSync)
    .mock.calls.filter(([file]) => String(file).startsWith(dir) && String(file).endsWith('.ts'));

let dir: string;

beforeAll(async () => {
  dir = await emptyDir();
  await mkdir(path.join(dir, 'src'));
  for (let i = 0; i < 300; i++)
    await writeFile(path.join(dir, 'src', `f${String(i).padStart(3, '0')}.ts`), 'x\n');
});
afterAll(async () => removeDir(dir));

describe('list_files and lstat', () => {
  it('lists a text page of paths without stat; JSON, fields and structuredContent get sizes and times', async () => {
    const server = await connect([dir]);
    try {
      vi.mocked(fs.lstatSync).mockClear();
      const text = await server.call('list_files', { limit: 300, max_answer_tokens: 500 });
      expect(text.text.split('\n')[0]).toBe('src/f000.ts');
      const cursor = /^# next_cursor: (.+)$/m.exec(text.text)?.[1];
      expect(cursor).toBeDefined();
      expect(lstatCalls()).toEqual([]);
      // The same listing continued as JSON: its rows are stat'ed now.
      const next = await server.json('list_files', { limit: 300, max_answer_tokens: 500, cursor });
      expect((next.files as { size_bytes: number; mtime: number }[])[0]).toMatchObject({
        size_bytes: 2,
        mtime: expect.any(Number),
      });
      vi.mocked(fs.lstatSync).mockClear();
      const table = await server.call('list_files', { limit: 5, fields: ['size_bytes'] });
      expect(table.text).toContain('src/f000.ts\t2');
      expect(lstatCalls().length).toBeGreaterThanOrEqual(5);
      vi.mocked(fs.lstatSync).mockClear();
      await server.call('list_files', { limit: 5, fields: ['ext'] });
      expect(lstatCalls()).toEqual([]);
    } finally {
      await server.close();
    }
    const structured = await connect([dir], { structuredOutput: true });
    try {
      const answer = await structured.call('list_files', { limit: 5 });
      expect((answer.structuredContent?.files as { size_bytes?: number }[])[0]?.size_bytes).toBe(2);
    } finally {
      await structured.close();
    }
  });
});
