// Structure and metrics on code as other people write it: a Go file from git's contrib (methods with
// receivers), Rust traits, C and C++ that the preprocessor makes hard to parse, shebangs and docstrings.
import { existsSync } from 'node:fs';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, emptyDir, removeDir, type Connected } from './helpers.js';

const REAL = fileURLToPath(new URL('./fixtures/real', import.meta.url));
let dir: string;
let server: Connected;

interface Row {
  kind: string;
  name: string;
  start_line: number;
  end_line: number;
  class: string;
}

const C_BRANCHES = `static int foo(int a)
{
\tint r = compute(a
#if defined(X)
\t\t, 1
#endif
\t\t);
\treturn r;
}

static int brace(int a)
{
#ifdef X
\tif (a) {
#else
\tif (!a) {
#endif
\t\ta++;
\t}
\treturn a;
}

int after_brace(void)
{
\treturn 3;
}
`;

const CPP_MACROS = `#pragma once
namespace ns {
class QT_CORE_EXPORT QObject : public QBase
{
public:
    explicit QObject(QObject *parent = nullptr);
    int value() const { return v; }
    int v;
};
struct ABSL_MUST_USE_RESULT Status final {
  int code() const { return c; }
  int c;
};
class DLL_API Widget {
  void draw() {}
};
}
`;

// A header as glibc and C++ libraries write them: prototypes with attribute macros after the
// parameters, a function pointer variable (not a function), member declarations without bodies.
const C_HEADER = `extern FILE *fopen (const char *__restrict __filename,
\t\t    const char *__restrict __modes) __wur;
extern int remove (const char *__filename) __THROW;
extern int fclose (FILE *__stream) __nonnull ((1));
char *strdup(const char *s);
extern int (*handler)(int);
int count;
`;

const CPP_DECLARATIONS = `class Widget {
public:
  Widget();
  void draw() const;
  virtual int size() = 0;
  int (*callback)(int);
};
`;

// glibc's own stdio.h, where the machine has it (Debian's libc6-dev; CI installs build-essential).
const SYSTEM_STDIO = '/usr/include/stdio.h';

beforeAll(async () => {
  dir = await emptyDir();
  await mkdir(path.join(dir, 'src'));
  await copyFile(path.join(REAL, 'proxy.go'), path.join(dir, 'src', 'proxy.go'));
  await writeFile(
    path.join(dir, 'src', 'shape.rs'),
    'pub trait Shape {\n    fn area(&self) -> f64;\n    fn name(&self) -> String { "shape".into() }\n}\n',
  );
  await writeFile(path.join(dir, 'src', 'branches.c'), C_BRANCHES);
  await writeFile(path.join(dir, 'src', 'qobject.h'), CPP_MACROS);
  await writeFile(path.join(dir, 'src', 'qobject.hpp'), CPP_MACROS);
  await writeFile(path.join(dir, 'src', 'api.h'), C_HEADER);
  await writeFile(path.join(dir, 'src', 'widget.hpp'), CPP_DECLARATIONS);
  if (existsSync(SYSTEM_STDIO)) await copyFile(SYSTEM_STDIO, path.join(dir, 'src', 'stdio.h'));
  await writeFile(path.join(dir, 'src', 'run.sh'), '#!/bin/bash\n# say hello\necho hello\n');
  await writeFile(
    path.join(dir, 'src', 'doc.py'),
    '"""Module docstring\nover two lines."""\n\n\ndef f():\n    """Does f."""\n    return 1\n',
  );
  server = await connect([dir]);
});
afterAll(async () => {
  await server.close();
  await removeDir(dir);
});

describe('structure of real code', () => {
  it('outlines Go methods declared with a receiver, under their type (git contrib proxy.go)', async () => {
    const outline = await server.both('get_code_outline', { file_path: 'src/proxy.go' });
    const rows = outline.outline as Row[];
    const methods = rows.filter((r) => r.kind === 'method').map((r) => `${r.class}.${r.name}`);
    expect(methods).toEqual([
      'Proxy.Run',
      'socketContext.Done',
      'Proxy.serveUnix',
      'Proxy.handleUnixConn',
      'Proxy.closeOnIdle',
      'Proxy.closeOnUpdate',
      'Proxy.closeOnSignal',
    ]);
    expect(rows.find((r) => r.name === 'Run')).toMatchObject({ start_line: 41, class: 'Proxy' });
    // analyze_code_structure lists the same methods.
    const structure = await server.json('analyze_code_structure', { file_path: 'src/proxy.go' });
    const listed = (structure.functions as { kind: string; name: string }[]).filter(
      (f) => f.kind === 'method',
    );
    expect(listed.map((f) => f.name)).toEqual(methods.map((m) => m.split('.')[1]));
  });

  it('lists Rust trait methods without a body', async () => {
    const outline = await server.json('get_code_outline', { file_path: 'src/shape.rs' });
    expect(outline.outline).toEqual([
      { kind: 'trait', name: 'Shape', start_line: 1, end_line: 4, class: '' },
      { kind: 'method', name: 'area', start_line: 2, end_line: 2, class: 'Shape' },
      { kind: 'method', name: 'name', start_line: 3, end_line: 3, class: 'Shape' },
    ]);
  });

  it('finds C functions whose #if/#else branches unbalance braces', async () => {
    const structure = await server.json('analyze_code_structure', { file_path: 'src/branches.c' });
    const names = (structure.functions as { name: string; start_line: number; end_line: number }[]).map(
      (f) => `${f.name}:${f.start_line}-${f.end_line}`,
    );
    expect(names).toEqual(['foo:1-9', 'brace:11-21', 'after_brace:23-26']);
  });

  it.each(['src/qobject.h', 'src/qobject.hpp'])('names classes behind export macros (%s)', async (file) => {
    const outline = await server.json('get_code_outline', { file_path: file });
    const rows = (outline.outline as Row[]).map((r) => `${r.kind} ${r.class ? `${r.class}.` : ''}${r.name}`);
    if (file.endsWith('.hpp')) {
      expect(rows).toEqual(
        expect.arrayContaining([
          'class QObject',
          'method QObject.value',
          'field QObject.v',
          'struct Status',
          'method Status.code',
          'class Widget',
          'method Widget.draw',
        ]),
      );
      expect(rows.join('\n')).not.toMatch(/QT_CORE_EXPORT|DLL_API|ABSL_MUST_USE_RESULT/);
    } else {
      // A .h file is read as C: the class heads are not C, but the structs' names still come out right.
      expect(rows.join('\n')).not.toMatch(/ABSL_MUST_USE_RESULT/);
    }
  });
});

describe('prototypes: a header outlines its API', () => {
  it('lists C prototypes, also behind glibc attribute macros, but not variables or function pointers', async () => {
    const outline = await server.json('get_code_outline', { file_path: 'src/api.h' });
    expect(
      (outline.outline as Row[]).map((r) => `${r.kind} ${r.name}:${r.start_line}-${r.end_line}`),
    ).toEqual(['function fopen:1-2', 'function remove:3-3', 'function fclose:4-4', 'function strdup:5-5']);
  });

  it('lists C++ member declarations as methods of their class, a member function pointer as a field', async () => {
    const structure = await server.json('analyze_code_structure', { file_path: 'src/widget.hpp' });
    const functions = structure.functions as { kind: string; class: string; name: string; params: number }[];
    expect(functions.map((f) => `${f.kind} ${f.class}.${f.name}/${f.params}`)).toEqual([
      'method Widget.Widget/0',
      'method Widget.draw/0',
      'method Widget.size/0',
    ]);
    expect((structure.fields as { name: string }[]).map((f) => f.name)).toEqual(['callback']);
    expect(structure.classes).toMatchObject([{ name: 'Widget', methods: 3, fields: 1 }]);
  });

  it.runIf(existsSync(SYSTEM_STDIO))(
    "outlines glibc's stdio.h (skipped where the machine has no libc headers)",
    async () => {
      const outline = await server.json('get_code_outline', { file_path: 'src/stdio.h' });
      const names = (outline.outline as Row[]).filter((r) => r.kind === 'function').map((r) => r.name);
      expect(names).toEqual(
        expect.arrayContaining(['fopen', 'fclose', 'remove', 'printf', 'fprintf', 'fgets']),
      );
      expect(names.length).toBeGreaterThan(80);
      expect(names.join(' ')).not.toMatch(/__THROW|__wur|__nonnull/);
    },
  );
});

describe('line metrics as cloc counts them', () => {
  it('counts a #! line as code (cloc does), a comment after it as comment', async () => {
    const scale = await server.json('check_code_scale', { file_path: 'src/run.sh', metrics_only: true });
    expect(scale.metrics).toMatchObject({ total_lines: 3, code_lines: 2, comment_lines: 1, blank_lines: 0 });
  });

  it('counts Python docstrings as comment lines', async () => {
    const scale = await server.json('check_code_scale', { file_path: 'src/doc.py', metrics_only: true });
    expect(scale.metrics).toMatchObject({ total_lines: 7, code_lines: 2, comment_lines: 3, blank_lines: 2 });
  });
});
