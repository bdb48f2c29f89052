import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyDir, removeDir } from './helpers.js';

import { localFiles, type FileAccess } from '@mcp-workbench/core/engine';
import { extractSections } from '../src/extract/extract.js';
import { EXTRACT_LIMITS } from '../src/extract/limits.js';

// Count the files the engine opens.
const reads = { count: 0 };
const files: FileAccess = {
  ...localFiles,
  openFile: (file) => {
    reads.count++;
    return localFiles.openFile(file);
  },
};

let dir: string;
beforeAll(async () => {
  dir = await emptyDir();
  await writeFile(path.join(dir, 'a.txt'), 'one\ntwo\nthree\n');
});
afterAll(async () => removeDir(dir));

describe('extractSections', () => {
  it('reads each file once, however many sections and requests name it', async () => {
    const real = path.join(dir, 'a.txt');
    reads.count = 0;
    const result = await extractSections(
      [
        { file_path: 'a.txt', realPath: real, sections: [{ start_line: 1, end_line: 1 }, { start_line: 3 }] },
        { file_path: 'a.txt', realPath: real, sections: [{ start_line: 2, end_line: 2 }] },
      ],
      { files, allowTruncate: false, failFast: false },
    );
    expect(reads.count).toBe(1);
    expect(result.files.flatMap((f) => f.sections.map((s) => s.content))).toEqual([
      'one\n',
      'three\n',
      'two\n',
    ]);
  });

  it('names the total limit(s) that actually cut a section', async () => {
    const real = path.join(dir, 'a.txt');
    const cut = async (maxLines: number, maxBytes: number) => {
      const limits = { ...EXTRACT_LIMITS, max_total_lines: maxLines, max_total_bytes: maxBytes };
      const result = await extractSections(
        [{ file_path: 'a.txt', realPath: real, sections: [{ start_line: 1 }] }],
        { files, allowTruncate: true, failFast: false, limits },
      );
      return [result.truncatedBy, result.files[0]?.sections[0]?.content];
    };
    // "one\n" and "two\n" are 4 bytes each: both limits are full at the third line.
    expect(await cut(2, 100)).toEqual([['max_total_lines'], 'one\ntwo\n']);
    expect(await cut(10, 7)).toEqual([['max_total_bytes'], 'one\n']);
    expect(await cut(2, 8)).toEqual([['max_total_lines', 'max_total_bytes'], 'one\ntwo\n']);
  });
});
