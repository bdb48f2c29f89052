// A search_content cursor over files that changed since it was issued answers CONFLICT, as
// extract_code_section's does (README: "The files changed since next_cursor was issued"; audit t18:
// the next page came from the new lines under the old counts).
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ageTree, connect, emptyDir, removeDir, type Connected } from './helpers.js';

const BIG = Array.from({ length: 3000 }, (_, i) => `x_${i} = ${i}\n`).join('');
let dir: string;
let server: Connected;

beforeAll(async () => {
  dir = await emptyDir();
  await writeFile(path.join(dir, 'big.py'), BIG);
  await writeFile(path.join(dir, 'other.py'), BIG);
  await ageTree(dir);
  server = await connect([dir]);
});
afterAll(async () => {
  await server.close();
  await removeDir(dir);
});

const QUERY = { query: 'x_\\d+ = ', max_answer_tokens: 1000 };

describe('search_content cursor after a file changed', () => {
  it('continues while the files are unchanged', async () => {
    const page1 = await server.json('search_content', { ...QUERY, files: ['other.py'] });
    expect(page1.next_cursor).toBeDefined();
    const page2 = await server.json('search_content', {
      ...QUERY,
      files: ['other.py'],
      cursor: page1.next_cursor,
    });
    expect((page2.matches as unknown[]).length).toBeGreaterThan(0);
  });

  it('answers CONFLICT when a file of the pages changed, even with the same match counts', async () => {
    const page1 = await server.json('search_content', { ...QUERY, files: ['big.py'] });
    expect(page1.next_cursor).toBeDefined();
    const file = path.join(dir, 'big.py');
    // A line that does not match: every count stays the same, every line number moves.
    await writeFile(file, `INSERTED = 1\n${await readFile(file, 'utf8')}`);
    const error = await server.fail('search_content', {
      ...QUERY,
      files: ['big.py'],
      cursor: page1.next_cursor,
    });
    expect(error.code).toBe('CONFLICT');
    // Starting over works on the current file.
    const fresh = await server.json('search_content', { ...QUERY, files: ['big.py'] });
    expect((fresh.matches as { line: number }[])[0]?.line).toBe(2);
  });
});
