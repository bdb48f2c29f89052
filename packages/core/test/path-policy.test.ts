import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWithin, normalizeSeparators, PathPolicy, ToolError } from '../src/index.js';

let base: string;
let root: string;
let outside: string;

async function file(p: string, content = 'x') {
  await mkdir(path.dirname(p), { recursive: true });
  await writeFile(p, content);
}

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'path-policy-')));
  root = path.join(base, 'root');
  outside = path.join(base, 'outside');
  await file(path.join(root, 'inside.txt'));
  await file(path.join(root, 'sub', 'file.txt'));
  await file(path.join(root, '.env'));
  await file(path.join(root, 'sub', '.env'));
  await file(path.join(root, 'secrets', 'key.pem'));
  await file(path.join(root, 'secrets', 'readme.txt'));
  await file(path.join(root, 'sub', 'secrets', 'deep.txt'));
  await file(path.join(root, 'sub', 'secrets.txt'));
  await file(path.join(root, 'node_modules', 'x.js'));
  await file(path.join(root, 'café.txt'.normalize('NFC')));
  await file(path.join(outside, 'secret.txt'), 'top secret');
  await file(path.join(base, 'root-evil', 'x.txt'));
  await symlink(path.join(outside, 'secret.txt'), path.join(root, 'link-out'));
  await symlink(outside, path.join(root, 'dirlink-out'));
  await symlink(path.join(root, 'sub', 'file.txt'), path.join(root, 'link-in'));
  await symlink(path.join(outside, 'not-yet.txt'), path.join(root, 'dangling'));
  await symlink(path.join(root, 'sub', 'new.txt'), path.join(root, 'dangling-in'));
  await symlink(path.join(root, '.env'), path.join(root, 'link-to-env'));
  await symlink(path.join(root, 'loop2'), path.join(root, 'loop1'));
  await symlink(path.join(root, 'loop1'), path.join(root, 'loop2'));
  await symlink(root, path.join(base, 'rootlink'));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

type Expectation = { ok: string } | { code: string };
interface Case {
  name: string;
  input: () => string;
  mustExist?: boolean;
  kind?: 'file' | 'directory';
  deny?: string[];
  expect: () => Expectation;
}

const ok = (rel: string) => () => ({ ok: path.join(root, rel) });
const fails = (code: string) => () => ({ code });

const cases: Case[] = [
  { name: 'relative file', input: () => 'inside.txt', mustExist: true, expect: ok('inside.txt') },
  { name: 'nested relative file', input: () => 'sub/file.txt', mustExist: true, expect: ok('sub/file.txt') },
  { name: 'dot segments that stay inside', input: () => './sub/../inside.txt', expect: ok('inside.txt') },
  { name: 'absolute path inside', input: () => path.join(root, 'inside.txt'), expect: ok('inside.txt') },
  {
    name: 'file:// URL inside',
    input: () => pathToFileURL(path.join(root, 'inside.txt')).href,
    expect: ok('inside.txt'),
  },
  {
    name: 'backslash separators inside',
    input: () => 'sub\\file.txt',
    mustExist: true,
    expect: ok('sub/file.txt'),
  },
  {
    name: 'new file in a new folder',
    input: () => 'sub/deeper/new/file.txt',
    expect: ok('sub/deeper/new/file.txt'),
  },
  { name: 'missing file allowed for writing', input: () => 'missing.txt', expect: ok('missing.txt') },
  { name: 'symlink inside → inside', input: () => 'link-in', mustExist: true, expect: ok('sub/file.txt') },
  {
    name: 'dangling symlink inside → inside (create)',
    input: () => 'dangling-in',
    expect: ok('sub/new.txt'),
  },
  {
    name: 'NFD spelling of an NFC file',
    input: () => 'café.txt'.normalize('NFD'),
    mustExist: true,
    expect: ok('café.txt'.normalize('NFC')),
  },
  {
    // The other form is tried once: trying the other form's other form again never ended.
    name: 'missing file with a composed (NFC) accented name',
    input: () => 'がぎ-missing.txt'.normalize('NFC'),
    mustExist: true,
    expect: fails('NOT_FOUND'),
  },
  {
    name: 'missing file with a decomposed (NFD) accented name',
    input: () => 'café-missing.txt'.normalize('NFD'),
    mustExist: true,
    expect: fails('NOT_FOUND'),
  },
  {
    name: 'deny glob that does not match',
    input: () => 'sub/file.txt',
    deny: ['*.pem'],
    expect: ok('sub/file.txt'),
  },
  { name: 'parent traversal', input: () => '../outside/secret.txt', expect: fails('PATH_OUTSIDE_ROOT') },
  {
    name: 'deep traversal to /etc/passwd',
    input: () => '../../../../../../../../etc/passwd',
    expect: fails('PATH_OUTSIDE_ROOT'),
  },
  { name: 'absolute path outside', input: () => '/etc/passwd', expect: fails('PATH_OUTSIDE_ROOT') },
  {
    name: 'traversal after a real folder',
    input: () => 'sub/../../outside/secret.txt',
    expect: fails('PATH_OUTSIDE_ROOT'),
  },
  { name: 'backslash traversal', input: () => '..\\outside\\secret.txt', expect: fails('PATH_OUTSIDE_ROOT') },
  { name: 'file:// URL outside', input: () => 'file:///etc/passwd', expect: fails('PATH_OUTSIDE_ROOT') },
  {
    name: 'sibling folder sharing the root prefix',
    input: () => path.join(base, 'root-evil', 'x.txt'),
    expect: fails('PATH_OUTSIDE_ROOT'),
  },
  {
    name: 'Windows drive path on POSIX',
    input: () => 'C:\\Windows\\system32\\config',
    expect: fails('PATH_OUTSIDE_ROOT'),
  },
  { name: 'home directory shortcut', input: () => '~/.ssh/id_rsa', expect: fails('PATH_OUTSIDE_ROOT') },
  { name: 'symlink inside → file outside', input: () => 'link-out', expect: fails('PATH_OUTSIDE_ROOT') },
  {
    name: 'symlinked folder → outside, existing file',
    input: () => 'dirlink-out/secret.txt',
    expect: fails('PATH_OUTSIDE_ROOT'),
  },
  {
    name: 'symlinked parent of a new file',
    input: () => 'dirlink-out/new.txt',
    expect: fails('PATH_OUTSIDE_ROOT'),
  },
  {
    name: 'dangling symlink pointing outside (create)',
    input: () => 'dangling',
    expect: fails('PATH_OUTSIDE_ROOT'),
  },
  {
    name: 'percent-encoded traversal is a literal name',
    input: () => '%2e%2e%2foutside%2fsecret.txt',
    mustExist: true,
    expect: fails('NOT_FOUND'),
  },
  {
    name: 'mixed encoded separator is a literal name',
    input: () => '..%2Foutside%2Fsecret.txt',
    mustExist: true,
    expect: fails('NOT_FOUND'),
  },
  { name: 'NUL byte', input: () => 'inside.txt\0.png', expect: fails('INVALID_ARGUMENT') },
  { name: 'empty path', input: () => '', expect: fails('INVALID_ARGUMENT') },
  {
    name: 'deny glob on a name at the root',
    input: () => '.env',
    deny: ['.env'],
    expect: fails('PATH_DENIED'),
  },
  {
    name: 'deny glob without slash matches at any depth',
    input: () => 'sub/.env',
    deny: ['.env'],
    expect: fails('PATH_DENIED'),
  },
  {
    name: 'denied folder denies its children',
    input: () => 'secrets/key.pem',
    deny: ['secrets'],
    expect: fails('PATH_DENIED'),
  },
  {
    name: 'globstar deny',
    input: () => 'node_modules/x.js',
    deny: ['**/node_modules/**'],
    expect: fails('PATH_DENIED'),
  },
  {
    name: 'symlink to a denied file',
    input: () => 'link-to-env',
    deny: ['.env'],
    expect: fails('PATH_DENIED'),
  },
  {
    name: 'missing file that must exist',
    input: () => 'missing.txt',
    mustExist: true,
    expect: fails('NOT_FOUND'),
  },
  {
    name: 'folder where a file is expected',
    input: () => 'sub',
    kind: 'file',
    expect: fails('INVALID_ARGUMENT'),
  },
  {
    name: 'file where a folder is expected',
    input: () => 'inside.txt',
    kind: 'directory',
    expect: fails('INVALID_ARGUMENT'),
  },
  {
    name: 'deny glob with a slash matches from the root',
    input: () => 'sub/file.txt',
    deny: ['sub/**'],
    expect: fails('PATH_DENIED'),
  },
  {
    name: 'deny glob with a leading slash is anchored at the root',
    input: () => 'secrets/key.pem',
    deny: ['/secrets/*.pem'],
    expect: fails('PATH_DENIED'),
  },
  {
    name: 'anchored deny glob does not match deeper',
    input: () => 'sub/file.txt',
    deny: ['/file.txt', 'other/**'],
    expect: ok('sub/file.txt'),
  },
  // The .gitignore family (a folder named with a trailing slash must be protected, not ignored).
  ...(
    [
      ['secrets/', 'secrets/key.pem'],
      ['secrets/', 'sub/secrets/deep.txt'],
      ['secrets/', 'secrets'],
      ['secrets', 'sub/secrets/deep.txt'],
      ['/secrets/', 'secrets/key.pem'],
      ['secrets/**', 'secrets/readme.txt'],
      ['**/secrets', 'sub/secrets/deep.txt'],
      ['**/secrets/', 'secrets/key.pem'],
      ['sub/secrets/', 'sub/secrets/deep.txt'],
      ['*.pem', 'secrets/key.pem'],
      ['secrets\\**', 'secrets/key.pem'],
      ['\\secrets\\', 'secrets/key.pem'],
      ['**\\secrets\\*.txt', 'sub/secrets/deep.txt'],
      ['secrets/!(*.txt)', 'secrets/key.pem'],
    ] as const
  ).map(([glob, input]): Case => ({
    name: `deny glob ${JSON.stringify(glob)} refuses ${input}`,
    input: () => input,
    deny: [glob],
    expect: fails('PATH_DENIED'),
  })),
  ...(
    [
      ['/secrets/', 'sub/secrets/deep.txt'],
      ['secrets/', 'sub/secrets.txt'],
      ['secrets/**', 'sub/secrets/deep.txt'],
      ['sub/secrets/', 'secrets/key.pem'],
      ['*.pem', 'secrets/readme.txt'],
    ] as const
  ).map(([glob, input]): Case => ({
    name: `deny glob ${JSON.stringify(glob)} allows ${input}`,
    input: () => input,
    deny: [glob],
    expect: ok(input),
  })),
  {
    name: 'negated deny glob re-allows a file',
    input: () => 'secrets/readme.txt',
    deny: ['secrets/*', '!secrets/readme.txt'],
    expect: ok('secrets/readme.txt'),
  },
  {
    name: 'negated deny glob leaves the others denied',
    input: () => 'secrets/key.pem',
    deny: ['secrets/*', '!secrets/readme.txt'],
    expect: fails('PATH_DENIED'),
  },
  {
    name: 'negation cannot re-allow below a denied folder (as in git)',
    input: () => 'secrets/readme.txt',
    deny: ['secrets/', '!secrets/readme.txt'],
    expect: fails('PATH_DENIED'),
  },
  {
    name: 'a later deny glob wins over an earlier negation',
    input: () => 'secrets/readme.txt',
    deny: ['!secrets/readme.txt', 'secrets/*'],
    expect: fails('PATH_DENIED'),
  },
  {
    name: 'a lone negation denies nothing',
    input: () => 'sub/file.txt',
    deny: ['!*.md'],
    expect: ok('sub/file.txt'),
  },
  { name: 'symlink loop', input: () => 'loop1', expect: fails('INVALID_ARGUMENT') },
  {
    name: 'very long path',
    input: () => 'a/'.repeat(3000) + 'x.txt',
    mustExist: true,
    expect: fails('INVALID_ARGUMENT'),
  },
  {
    name: 'name longer than the file system allows',
    input: () => 'n'.repeat(300) + '.txt',
    expect: fails('INVALID_ARGUMENT'),
  },
];

describe('PathPolicy attack and legitimate-path table', () => {
  it('has at least 30 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
  });

  it.each(cases)('$name', async (c) => {
    const policy = await PathPolicy.create({ roots: [root], denyGlobs: c.deny ?? [] });
    const expected = c.expect();
    const attempt = policy.resolve(c.input(), {
      ...(c.mustExist ? { mustExist: true } : {}),
      ...(c.kind ? { kind: c.kind } : {}),
    });
    if ('ok' in expected) {
      await expect(attempt).resolves.toBe(expected.ok);
    } else {
      const error = await attempt.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ToolError);
      expect((error as ToolError).code).toBe(expected.code);
    }
  });
});

describe('PathPolicy roots', () => {
  it('names the allowed roots in the error and its hint', async () => {
    const policy = await PathPolicy.create({ roots: [root] });
    const error = (await policy.resolve('/etc/passwd').catch((e: unknown) => e)) as ToolError;
    expect(error.message).toContain(root);
    expect(error.hint).toContain(root);
    expect(error.details).toEqual({ allowed_roots: [root] });
  });

  it('names only the path asked for, never where a symbolic link leads outside the roots', async () => {
    const policy = await PathPolicy.create({ roots: [root] });
    for (const input of ['link-out', 'dirlink-out/secret.txt', 'dangling']) {
      const error = (await policy.resolve(input).catch((e: unknown) => e)) as ToolError;
      expect(error.code, input).toBe('PATH_OUTSIDE_ROOT');
      expect(error.message).toContain(`"${input}"`);
      expect(error.message).toContain('symbolic link');
      expect(`${error.message} ${error.hint} ${JSON.stringify(error.details)}`).not.toContain(outside);
    }
  });

  it('accepts a root that is itself a symlink, by its link path and by its real path', async () => {
    const link = path.join(base, 'rootlink');
    const policy = await PathPolicy.create({ roots: [link] });
    expect(policy.roots).toEqual([root]);
    await expect(policy.resolve(path.join(link, 'inside.txt'), { mustExist: true })).resolves.toBe(
      path.join(root, 'inside.txt'),
    );
    await expect(policy.resolve('inside.txt', { mustExist: true })).resolves.toBe(
      path.join(root, 'inside.txt'),
    );
    await expect(policy.resolve(path.join(link, '..', 'outside', 'secret.txt'))).rejects.toMatchObject({
      code: 'PATH_OUTSIDE_ROOT',
    });
  });

  it('resolves relative paths against the first root and allows absolute paths into any root', async () => {
    const policy = await PathPolicy.create({ roots: [path.join(root, 'sub'), outside] });
    await expect(policy.resolve('file.txt', { mustExist: true })).resolves.toBe(
      path.join(root, 'sub', 'file.txt'),
    );
    await expect(policy.resolve(path.join(outside, 'secret.txt'), { mustExist: true })).resolves.toBe(
      path.join(outside, 'secret.txt'),
    );
    await expect(policy.resolve(path.join(root, 'inside.txt'))).rejects.toMatchObject({
      code: 'PATH_OUTSIDE_ROOT',
    });
    // With several roots a shown path carries its root's name, so it comes back to the same file.
    expect(policy.displayPath(path.join(outside, 'secret.txt'))).toBe('outside/secret.txt');
    expect(policy.displayPath(path.join(root, 'sub', 'file.txt'))).toBe('sub/file.txt');
    expect(policy.displayPath(path.join(root, 'sub'))).toBe('sub');
    expect(policy.displayPath('/etc/passwd')).toBe('/etc/passwd');
    expect(policy.rootOf(path.join(outside, 'secret.txt'))).toBe(outside);
  });

  it('shows every path of every root in a form that resolves back to the same file', async () => {
    const one = await PathPolicy.create({ roots: [root] });
    expect(one.displayPath(path.join(root, 'sub', 'file.txt'))).toBe('sub/file.txt');
    expect(one.displayPath(root)).toBe('.');
    const policy = await PathPolicy.create({ roots: [root, outside] });
    const files = [
      path.join(root, 'inside.txt'),
      path.join(root, 'sub', 'file.txt'),
      path.join(outside, 'secret.txt'),
    ];
    for (const real of files) {
      const shown = policy.displayPath(real);
      await expect(policy.resolve(shown, { mustExist: true }), shown).resolves.toBe(real);
    }
    expect(policy.displayPath(path.join(outside, 'secret.txt'))).toBe('outside/secret.txt');
    expect(policy.displayPath(path.join(root, 'inside.txt'))).toBe('root/inside.txt');
    expect(policy.namesRoot('outside/secret.txt')).toBe(true);
    expect(policy.namesRoot('sub/file.txt')).toBe(false);
    // A relative path without a root's name still resolves against the first root.
    await expect(policy.resolve('inside.txt', { mustExist: true })).resolves.toBe(
      path.join(root, 'inside.txt'),
    );
    // A name that leaves the root after the prefix is still refused.
    await expect(policy.resolve('outside/../root-evil/x.txt')).rejects.toMatchObject({
      code: 'PATH_OUTSIDE_ROOT',
    });
  });

  it('tells roots with the same folder name apart (name~2)', async () => {
    const other = path.join(base, 'other', 'sub');
    await file(path.join(other, 'file.txt'), 'other');
    const policy = await PathPolicy.create({ roots: [path.join(root, 'sub'), other] });
    expect(policy.displayPath(path.join(root, 'sub', 'file.txt'))).toBe('sub/file.txt');
    expect(policy.displayPath(path.join(other, 'file.txt'))).toBe('sub~2/file.txt');
    await expect(policy.resolve('sub~2/file.txt', { mustExist: true })).resolves.toBe(
      path.join(other, 'file.txt'),
    );
    await expect(policy.resolve('sub/file.txt', { mustExist: true })).resolves.toBe(
      path.join(root, 'sub', 'file.txt'),
    );
  });

  it('tells whether a path found by a directory walk may be shown', async () => {
    const policy = await PathPolicy.create({ roots: [root], denyGlobs: ['.env', 'secrets/**'] });
    expect(policy.allows(path.join(root, 'sub', 'file.txt'))).toBe(true);
    expect(policy.allows(path.join(root, 'sub', '.env'))).toBe(false);
    expect(policy.allows(path.join(root, 'secrets', 'key.pem'))).toBe(false);
    expect(policy.allows(path.join(outside, 'secret.txt'))).toBe(false);
  });

  it('denies a path when the deny glob matches relative to ANY root that holds it', async () => {
    const policy = await PathPolicy.create({
      roots: [path.join(root, 'sub'), root],
      denyGlobs: ['sub/secrets/**'],
    });
    const deep = path.join(root, 'sub', 'secrets', 'deep.txt');
    await expect(policy.resolve(deep)).rejects.toMatchObject({ code: 'PATH_DENIED' });
    await expect(policy.resolve('secrets/deep.txt')).rejects.toMatchObject({ code: 'PATH_DENIED' });
    expect(policy.allows(deep)).toBe(false);
    expect(policy.allows(path.join(root, 'sub', 'file.txt'))).toBe(true);
  });

  it('matches deny globs whatever the Unicode normalisation of the names (NFD folders from macOS)', async () => {
    const nfdFolder = path.join(root, 'café'.normalize('NFD'));
    await file(path.join(nfdFolder, 'plan.txt'));
    for (const glob of ['café/'.normalize('NFC'), 'café/'.normalize('NFD'), '/café/**']) {
      const policy = await PathPolicy.create({ roots: [root], denyGlobs: [glob] });
      await expect(policy.resolve(path.join(nfdFolder, 'plan.txt')), glob).rejects.toMatchObject({
        code: 'PATH_DENIED',
      });
      await expect(policy.resolve(`${'café'.normalize('NFC')}/plan.txt`)).rejects.toMatchObject({
        code: 'PATH_DENIED',
      });
      expect(policy.allows(path.join(nfdFolder, 'plan.txt'))).toBe(false);
    }
  });

  it('exposes the deny globs normalised, for tools that hand them to ripgrep', async () => {
    const policy = await PathPolicy.create({ roots: [root], denyGlobs: ['secrets\\**', '  ', ' *.pem '] });
    expect(policy.denyGlobs).toEqual(['secrets/**', '*.pem']);
    expect(policy.allows(path.join(root, 'secrets', 'readme.txt'))).toBe(false);
  });

  it('refuses a malformed deny glob when the server starts, as ripgrep would refuse it on every call', async () => {
    for (const [glob, why] of [
      ['{a,b', /\{ is never closed/],
      ['a}', /\} has no \{/],
      ['secrets/[abc', /\[ is never closed/],
      ['[z-a].txt', /range z-a runs backwards/],
    ] as const) {
      await expect(
        PathPolicy.create({ roots: [root], denyGlobs: ['.env', glob] }),
        glob,
      ).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringMatching(why),
        details: { deny_glob: glob },
      });
    }
    // What ripgrep accepts is accepted: classes with ] first, negated classes, nested and empty groups.
    const policy = await PathPolicy.create({
      roots: [root],
      denyGlobs: ['[]a].txt', '[!a]x', '[^a]y', '{a,{b,c}}', '{}', '**/x', '!public.key', '[a-z]*.pem'],
    });
    expect(policy.allows(path.join(root, 'b.pem'))).toBe(false);
  });

  it('rejects missing roots, file roots and an empty root list', async () => {
    await expect(PathPolicy.create({ roots: [path.join(base, 'nope')] })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(PathPolicy.create({ roots: [path.join(root, 'inside.txt')] })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    await expect(PathPolicy.create({ roots: [] })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('skips unusable roots when asked, and keeps the old roots when none is usable', async () => {
    const policy = await PathPolicy.create({ roots: [root] });
    await policy.setRoots([path.join(base, 'nope'), outside], { skipMissing: true });
    expect(policy.roots).toEqual([outside]);
    await expect(policy.setRoots([path.join(base, 'nope')], { skipMissing: true })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(policy.roots).toEqual([outside]);
  });

  it('makes resolve wait for a pending roots update', async () => {
    const policy = await PathPolicy.create({ roots: [root], implicitRoots: true });
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    void policy.updateRootsAsync(async () => {
      await gate;
      return [outside];
    });
    const pending = policy.resolve('secret.txt', { mustExist: true });
    release();
    await expect(pending).resolves.toBe(path.join(outside, 'secret.txt'));
    // A failed update leaves the roots as they were and does not block later updates.
    await expect(policy.updateRootsAsync(() => Promise.reject(new Error('client gone')))).rejects.toThrow();
    expect(policy.roots).toEqual([outside]);
    await policy.updateRootsAsync(async () => [root]);
    expect(policy.roots).toEqual([root]);
  });
});

describe('Windows path rules (pure string logic)', () => {
  it('compares drive letters and names case-insensitively', () => {
    expect(isWithin('C:\\Users\\me', 'c:\\users\\ME\\file.txt', 'win32')).toBe(true);
    expect(isWithin('C:\\Users\\me\\', 'C:\\Users\\me', 'win32')).toBe(true);
  });

  it('does not confuse a sibling with a shared prefix, or another drive', () => {
    expect(isWithin('C:\\Users\\me', 'C:\\Users\\meow\\file.txt', 'win32')).toBe(false);
    expect(isWithin('C:\\Users\\me', 'D:\\Users\\me\\file.txt', 'win32')).toBe(false);
  });

  it('normalises forward slashes, dot segments and the drive letter', () => {
    expect(normalizeSeparators('c:/Users/me/../you/file.txt', 'win32')).toBe('C:\\Users\\you\\file.txt');
    expect(normalizeSeparators('sub\\file.txt', 'posix')).toBe('sub/file.txt');
  });

  it('treats POSIX paths case-sensitively', () => {
    expect(isWithin('/srv/Data', '/srv/data/x', 'posix')).toBe(false);
    expect(isWithin('/', '/anything', 'posix')).toBe(true);
  });
});
