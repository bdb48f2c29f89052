// The installers' configuration (electron-builder.yml). Electron's binary cannot be downloaded on this
// machine, so the installers themselves are built by the release workflow on GitHub's runners; here the
// configuration is checked against electron-builder's own schema (the version the workflow runs), and what
// it packs is checked: the main process with every file it imports, and the hardened window settings.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Ajv } from 'ajv';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ElectronApi } from '../src/desktop.js';
import { fakeElectron, FakeWindow } from './fake-electron.js';

const app = fileURLToPath(new URL('..', import.meta.url));
const repo = path.resolve(app, '..', '..');
const config = parse(readFileSync(path.join(app, 'electron-builder.yml'), 'utf8')) as {
  appId: string;
  productName: string;
  files: string[];
  asar: boolean;
  directories: { output: string };
  electronFuses: Record<string, boolean>;
  mac: { target: string; hardenedRuntime: boolean };
  win: { target: string };
  linux: { target: string[]; executableName: string };
};
const schemaFile = path.join(repo, 'scripts', 'vendor', 'electron-builder', 'scheme.json');
const SCHEMA_VERSION = '26.17.0'; // scripts/vendor/README.md: app-builder-lib@26.17.0's scheme.json

/** Every file of the app folder, relative, with forward slashes (as electron-builder matches them). */
function appFiles(dir = app, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const rel = `${prefix}${entry.name}`;
    if (entry.isDirectory()) {
      if (['node_modules', config.directories.output, '.reports', '.turbo', 'coverage'].includes(rel))
        return [];
      return appFiles(path.join(dir, entry.name), `${rel}/`);
    }
    return [rel];
  });
}

/** What `files` packs: the files matching a pattern, minus those a later `!pattern` excludes. */
function packedFiles(): string[] {
  const include = config.files.filter((p) => !p.startsWith('!')).map((p) => picomatch(p, { dot: true }));
  const exclude = config.files
    .filter((p) => p.startsWith('!'))
    .map((p) => picomatch(p.slice(1), { dot: true }));
  return appFiles().filter((f) => include.some((m) => m(f)) && !exclude.some((m) => m(f)));
}

/** The relative modules `file` imports (static and dynamic), as paths relative to the app folder. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(app, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map(
    (m) => m[1]!,
  );
  return specifiers.map((s) => path.posix.normalize(path.posix.join(path.posix.dirname(file), s)));
}

describe('electron-builder.yml', () => {
  it(`is valid for electron-builder ${SCHEMA_VERSION}'s schema, checked as electron-builder checks it`, () => {
    const schema = JSON.parse(readFileSync(schemaFile, 'utf8')) as object;
    // The options electron-builder's own validator uses (app-builder-lib/out/util/config/schemaValidator.js).
    const validate = new Ajv({ allErrors: true, verbose: true, coerceTypes: true, strict: false }).compile(
      schema,
    );
    expect(validate(structuredClone(config)), JSON.stringify(validate.errors, null, 2)).toBe(true);
    // The schema is strict enough to catch a misspelt option.
    expect(validate({ ...structuredClone(config), appID: config.appId })).toBe(false);
    expect(validate({ ...structuredClone(config), mac: { hardenedRuntim: true } })).toBe(false);
  }, 60_000); // compiling the 360 KB schema takes seconds on a busy machine

  it('names the app as the installers place it (README, md-review-mcp)', () => {
    expect(config.appId).toBe('io.github.mcp-workbench.md-review');
    expect(config.productName).toBe('md-review');
    expect(config.linux.executableName).toBe('md-review-desktop');
    expect([config.mac.target, config.win.target, ...config.linux.target]).toEqual([
      'dmg',
      'nsis',
      'AppImage',
      'deb',
    ]);
  });

  it('packs the main process and every file it imports, and no sources, tests or maps', () => {
    const packed = packedFiles();
    const pkg = JSON.parse(readFileSync(path.join(app, 'package.json'), 'utf8')) as { main: string };
    const needed = new Set<string>();
    const visit = (file: string) => {
      if (needed.has(file)) return;
      needed.add(file);
      for (const imported of importsOf(file)) visit(imported);
    };
    visit(pkg.main);
    expect(needed.size, 'main.js imports the app modules').toBeGreaterThan(2);
    expect(
      [...needed].filter((f) => !packed.includes(f)),
      'loaded but not packed',
    ).toEqual([]);
    expect(packed).toContain('package.json');
    expect(packed.filter((f) => /^(src|test|bin)\/|\.map$|\.d\.ts$|tsconfig/.test(f))).toEqual([]);
    expect(config.asar).toBe(true);
  });

  it('packs a main process that opens only sandboxed, isolated windows without Node', async () => {
    // The packed (built) modules, not the sources, driven with the stand-in for electron.
    const { startDesktop } = (await import(pathToFileURL(path.join(app, 'dist', 'desktop.js')).href)) as {
      startDesktop: (electron: ElectronApi, argv: string[], options: { log: () => void }) => unknown;
    };
    const fake = fakeElectron();
    startDesktop(fake.electron, ['electron', '.', 'http://127.0.0.1:41234/review/k#token=t'], {
      log: () => {},
    });
    await fake.ready();
    expect(FakeWindow.created[0]?.options.webPreferences).toEqual({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: true,
    });
  });

  it("fixes Electron's fuses: never plain Node.js, no NODE_OPTIONS or --inspect, only the checked app.asar", () => {
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
    });
    expect(config.mac.hardenedRuntime).toBe(true);
  });

  it("is what the release workflow builds, with the schema's electron-builder, on each platform's runner", () => {
    const workflow = parse(readFileSync(path.join(repo, '.github', 'workflows', 'release.yml'), 'utf8')) as {
      jobs: Record<
        string,
        {
          'runs-on': string;
          strategy?: { matrix: { include: Record<string, string>[] } };
          steps: { run?: string; with?: { path?: string } }[];
        }
      >;
    };
    const job = workflow.jobs.desktop!;
    const targets = Object.fromEntries(
      job.strategy!.matrix.include.map((m) => [m.os!.split('-')[0], m.targets]),
    );
    expect(targets.macos).toMatch(/--mac dmg/);
    expect(targets.windows).toMatch(/--win nsis/);
    expect(targets.ubuntu).toMatch(/--linux AppImage deb/);
    const build = job.steps.find((s) => s.run?.includes('electron-builder'))!;
    expect(build.run).toContain(`electron-builder@${SCHEMA_VERSION} --config electron-builder.yml`);
    const upload = job.steps.find((s) => s.with?.path)!;
    expect(upload.with!.path).toContain(`apps/md-review-desktop/${config.directories.output}/`);
  });
});
