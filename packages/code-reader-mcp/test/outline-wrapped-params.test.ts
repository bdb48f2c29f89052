// Prototypes whose parameter list is wrapped in a macro for K&R compilers (audit t8): zlib's
// `ZEXTERN int ZEXPORT deflate OF((z_streamp strm, int flush));`, BSD's `__P((…))`. The API name is the
// identifier before the macro, never the macro. zlib.h (zlib licence, notice kept) is compared with
// Universal Ctags when the machine has it.
import { execFileSync } from 'node:child_process';
import { copyFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a JavaScript module of the bench, shared with this test
import { hasUniversalCtags } from '../bench/lib/outline-vs-ctags.mjs';
import { connect, emptyDir, removeDir, type Connected } from './helpers.js';

const ZLIB = fileURLToPath(new URL('./fixtures/real/zlib.h', import.meta.url));

const WRAPPED = `#include <sys/cdefs.h>
extern int kill __P((pid_t, int));
EXTERN int Tcl_Eval _ANSI_ARGS_((Tcl_Interp *interp,
\t\t\t    const char *script));
typedef void (*free_func) OF((void *opaque, void *address));
ZEXTERN const char * ZEXPORT zlibVersion OF((void));
EXPORT BOOL WINAPI Beep OF((DWORD freq));
static int twice(int a)
{
\treturn (int) compute((a));
}
`;

interface Row {
  kind: string;
  name: string;
  start_line: number;
}

let dir: string;
let server: Connected;

beforeAll(async () => {
  dir = await emptyDir();
  await copyFile(ZLIB, path.join(dir, 'zlib.h'));
  await writeFile(path.join(dir, 'wrapped.h'), WRAPPED);
  server = await connect([dir]);
});
afterAll(async () => {
  await server.close();
  await removeDir(dir);
});

async function outline(file: string): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | undefined;
  do {
    const page = await server.json('get_code_outline', {
      file_path: file,
      max_answer_tokens: 20_000,
      ...(cursor ? { cursor } : {}),
    });
    rows.push(...(page.outline as Row[]));
    cursor = page.next_cursor as string | undefined;
  } while (cursor);
  return rows;
}

describe('prototypes with a macro-wrapped parameter list', () => {
  it('names each by the identifier before the macro', async () => {
    const rows = (await outline('wrapped.h')).filter((r) => r.kind === 'function');
    expect(rows.map((r) => [r.name, r.start_line])).toEqual([
      ['kill', 2],
      ['Tcl_Eval', 3],
      ['zlibVersion', 6],
      ['Beep', 7],
      ['twice', 8],
    ]);
  });

  it('lists zlib.h’s API, not the OF macro', async () => {
    const rows = await outline('zlib.h');
    const names = rows.filter((r) => r.kind === 'function').map((r) => r.name);
    expect(names).not.toContain('OF');
    expect(names).toEqual(expect.arrayContaining(['zlibVersion', 'deflate', 'inflate', 'gzopen', 'crc32']));
    expect(names).toHaveLength(99);
  });

  it.runIf(hasUniversalCtags())('finds the prototypes ctags finds in zlib.h, on the same lines', async () => {
    const tags = execFileSync(
      'ctags',
      ['--output-format=json', '--fields=+n', '--kinds-c=+p', '-f', '-', 'zlib.h'],
      { cwd: dir, encoding: 'utf8' },
    )
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { _type: string; kind: string; name: string; line: number })
      .filter((t) => t._type === 'tag' && (t.kind === 'prototype' || t.kind === 'function'));
    const rows = (await outline('zlib.h')).filter((r) => r.kind === 'function');
    expect(rows.map((r) => `${r.name}@${r.start_line}`).sort()).toEqual(
      tags.map((t) => `${t.name}@${t.line}`).sort(),
    );
  });
});
