// After set_project_path, relative paths resolve in the project folder: the hints of their errors
// must name that folder, not the root (audit t43).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, copyFixture, removeDir, type Connected } from './helpers.js';

let dir: string;
let server: Connected;

beforeAll(async () => {
  dir = await copyFixture();
  server = await connect([dir]);
  await server.json('set_project_path', { project_path: 'src' });
});
afterAll(async () => {
  await server.close();
  await removeDir(dir);
});

describe('error hints after set_project_path', () => {
  it('name the project folder that relative paths resolve against', async () => {
    const missing = await server.fail('extract_code_section', { file_path: 'nope.py', start_line: 1 });
    expect(missing.code).toBe('NOT_FOUND');
    expect(missing.hint).toContain(`resolve against ${dir}/src (set_project_path)`);
    const searched = await server.fail('search_content', { query: 'x', files: ['nope.py'] });
    expect(searched.hint).toContain(`resolve against ${dir}/src (set_project_path)`);
    const outside = await server.fail('extract_code_section', { file_path: '../../x.py', start_line: 1 });
    expect(outside.code).toBe('PATH_OUTSIDE_ROOT');
    expect(outside.hint).toContain(`resolve against ${dir}/src (set_project_path)`);
  });

  it('keep naming the root for absolute paths', async () => {
    const missing = await server.fail('extract_code_section', { file_path: `${dir}/nope.py`, start_line: 1 });
    expect(missing.hint).toContain(`resolve against ${dir}.`);
  });
});
