// get_code_outline against Universal Ctags: what the outline bench (bench/outline.bench.mjs) and its
// test (test/outline-ctags.test.ts) share. A tree's files, ctags' tags of them (JSON), and the
// comparison: the classes and functions ctags finds (default kinds) that an outline row covers (same
// name, ctags' line within the row), and the rows that are no declaration (no tag of ctags, with
// prototypes and other declaration kinds turned on, and no declaration in the source either).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const WORKSPACE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

export function newest(dir, prefix) {
  if (!existsSync(dir)) return undefined;
  const found = readdirSync(dir)
    .filter((name) => name.startsWith(prefix))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  return found.length ? path.join(dir, found.at(-1)) : undefined;
}

export function filesIn(dir, test, recursive) {
  if (!dir || !existsSync(dir)) return [];
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && recursive) out.push(...filesIn(full, test, true));
    else if (entry.isFile() && test(entry.name)) out.push(full);
  }
  return out.sort();
}

/**
 * A C++ row ctags has no tag for (its parser gives up on some templates) is checked on the source: a
 * class's keyword and name, a function's name and `(`, within the row's first lines. Macro-like names
 * (`_GLIBCXX_VISIBILITY`) and keywords (`decltype`, `noexcept`) are never declarations.
 */
function declaresCpp(row, lines) {
  const name = simple(row.name);
  if (
    /^[A-Z_][A-Z0-9_]*$/.test(name) ||
    /^(decltype|noexcept|sizeof|alignof|static_assert|if|for|while|switch|return)$/.test(name)
  )
    return false;
  // C++11 attributes may stand between a name and its parameters (`operator()[[nodiscard]](…)`).
  const head = lines
    .slice(row.start_line - 1, row.start_line + 7)
    .join('\n')
    .replace(/\[\[[^\]]*\]\]/g, '');
  // The name's words and signs, any spacing between them (`operator _Tp*` as written `operator _Tp *`).
  const last = row.name
    .replace(/\s+/g, ' ')
    .split('::')
    .at(-1)
    .replace(/<.*$/s, (m) => (row.name.startsWith('operator') ? m : ''));
  const pattern = (last.match(/\w+|[^\w\s]/g) ?? [])
    .map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('\\s*');
  if (row.kind === 'method' || row.kind === 'function')
    return new RegExp(`(^|[^\\w])${pattern}\\s*\\(`).test(head);
  if (row.name === '<anonymous>') return /\b(class|struct|union|enum)\s*\{/.test(head);
  return new RegExp(`\\b(class|struct|union|enum)\\s+(\\w+\\s+)*${pattern}\\b`).test(head);
}

const typesNode = newest(path.join(WORKSPACE, 'node_modules', '.pnpm'), '@types+node@');
const libstdcxx = newest('/usr/include/c++', '');
/**
 * Go's standard library: golang-go's /usr/lib/go, else the newest of Debian's golang-1.x-src alone
 * (/usr/share/go-1.x, what CI installs: the sources without the compiler).
 */
const goSrc = [
  '/usr/lib/go/src',
  newest('/usr/share', 'go-1.') && path.join(newest('/usr/share', 'go-1.'), 'src'),
].find((dir) => dir && existsSync(dir));
/** Tag kinds per language: what counts as a class and as a function, and what else a row may be. */
export const TREES = [
  {
    name: '@types/node',
    root: typesNode && path.join(typesNode, 'node_modules', '@types', 'node'),
    files: (root) => filesIn(root, (n) => n.endsWith('.d.ts'), true),
    classes: ['class', 'interface', 'enum'],
    functions: ['function', 'method', 'generator'],
    also: ['namespace', 'property', 'variable', 'constant', 'alias'],
    ctags: [],
    // ctags 5.9's TypeScript parser loses its way in some declaration files (assert.d.ts: 2 tags); a
    // row it has no tag for is checked against the source line instead.
    declares: (row, lines) => {
      const line = lines[row.start_line - 1] ?? '';
      const name = row.name.replace(/[$[\].]/g, (c) => `\\${c}`);
      if (row.kind === 'method') return new RegExp(`(^|[\\s;{.])(${name}|"${name}")\\??\\s*[<(]`).test(line);
      if (row.kind === 'function') return new RegExp(`\\bfunction\\*?\\s+${name}\\b`).test(line);
      return new RegExp(`\\b(class|interface|enum)\\s+${name}\\b`).test(line);
    },
  },
  {
    name: "libstdc++'s bits/",
    root: libstdcxx && path.join(libstdcxx, 'bits'),
    files: (root) => filesIn(root, (n) => n.endsWith('.h'), false),
    classes: ['class', 'struct', 'union', 'enum'],
    functions: ['function'],
    also: ['prototype', 'member', 'typedef', 'namespace', 'macro', 'variable'],
    ctags: ['--language-force=C++'],
    declares: declaresCpp,
  },
  {
    name: 'json.hpp',
    root: '/usr/include/nlohmann',
    files: (root) => filesIn(root, (n) => n === 'json.hpp', false),
    classes: ['class', 'struct', 'union', 'enum'],
    functions: ['function'],
    also: ['prototype', 'member', 'typedef', 'namespace', 'macro', 'variable'],
    ctags: ['--language-force=C++'],
    declares: declaresCpp,
  },
  {
    name: "Go's net/http",
    root: goSrc && path.join(goSrc, 'net', 'http'),
    files: (root) => filesIn(root, (n) => n.endsWith('.go'), false),
    classes: ['struct', 'interface', 'type', 'talias'],
    functions: ['func', 'methodSpec'],
    also: ['member', 'var', 'const'],
    ctags: [],
  },
  {
    name: "Python's asyncio",
    root: newest('/usr/lib', 'python3.') && path.join(newest('/usr/lib', 'python3.'), 'asyncio'),
    files: (root) => filesIn(root, (n) => n.endsWith('.py'), false),
    classes: ['class'],
    functions: ['function', 'member'],
    also: ['variable', 'unknown'],
    ctags: [],
  },
];

/** Every tag ctags finds in the files (prototypes and externs too: a row may be any declaration). */
export function ctagsOf(files, extra) {
  const out = execFileSync(
    'ctags',
    [
      '--output-format=json',
      '--fields=+nK',
      '--kinds-C=+px',
      '--kinds-C++=+px',
      ...extra,
      '-f',
      '-',
      ...files,
    ],
    { maxBuffer: 1 << 28, encoding: 'utf8' },
  );
  return out
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))
    .filter((tag) => tag._type === 'tag');
}

/** A name as both sides can compare it: the last part of a qualified name, no template arguments. */
export const simple = (name) =>
  name
    .replace(/^operator\s*/, 'operator')
    .replace(/(?<!^operator.*)<.*$/s, '')
    .split(/::|\./)
    .at(-1)
    .replace(/\s+/g, '');

export async function outlineRows(server, file) {
  const rows = [];
  let cursor;
  do {
    const result = await server.call('get_code_outline', {
      file_path: file,
      output_format: 'json',
      max_answer_tokens: 20_000,
      ...(cursor ? { cursor } : {}),
    });
    rows.push(...result.structured.outline);
    cursor = result.structured.next_cursor;
  } while (cursor);
  return rows;
}

/** Whether `ctags` is Universal Ctags (Debian's universal-ctags), as the comparison needs. */
export function hasUniversalCtags() {
  try {
    return execFileSync('ctags', ['--version'], { encoding: 'utf8' }).startsWith('Universal Ctags');
  } catch {
    return false;
  }
}

/**
 * Compares the outline of `files` (rows from `rowsOf(file)`) with ctags' tags of them: how many of the
 * classes and functions ctags finds the outline lists, and which rows are none.
 */
export async function compareTree(tree, files, rowsOf) {
  const tags = ctagsOf(files, tree.ctags);
  const wanted = new Set([...tree.classes, ...tree.functions]);
  const known = new Set([...wanted, ...tree.also]);
  let found = 0;
  let total = 0;
  let rowsChecked = 0;
  /** Rows ctags has no tag for that the source shows to be declarations of that name. */
  let checkedOnSource = 0;
  const misses = [];
  const extras = [];
  for (const file of files) {
    const rel = path.relative(tree.root, file);
    const lines = tree.declares ? readFileSync(file, 'utf8').split('\n') : [];
    const rows = (await rowsOf(file)).filter((row) => row.kind !== 'field');
    const fileTags = tags.filter((tag) => tag.path === file);
    // An anonymous type is "<anonymous>" in the outline and __anon… to ctags.
    const covers = (row, tag) =>
      (simple(row.name) === simple(tag.name) ||
        (row.name === '<anonymous>' && tag.name.startsWith('__anon'))) &&
      row.start_line <= tag.line &&
      tag.line <= row.end_line;
    const isClassRow = (row) => row.kind !== 'method' && row.kind !== 'function';
    for (const tag of fileTags) {
      // Lambdas and other unnamed things get names like __anon19d5a04a0102.
      if (!wanted.has(tag.kind) || tag.name.startsWith('__anon')) continue;
      total++;
      const asClass = tree.classes.includes(tag.kind);
      if (rows.some((row) => isClassRow(row) === asClass && covers(row, tag))) found++;
      else misses.push(`${rel}:${tag.line} ${tag.kind} ${tag.name}`);
    }
    for (const row of rows) {
      rowsChecked++;
      if (fileTags.some((tag) => known.has(tag.kind) && covers(row, tag))) continue;
      if (tree.declares?.(row, lines)) {
        checkedOnSource++;
        continue;
      }
      extras.push(`${rel}:${row.start_line} ${row.kind} ${row.name}`);
    }
  }
  return { found, total, rowsChecked, checkedOnSource, misses, extras };
}
