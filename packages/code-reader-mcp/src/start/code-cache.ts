// A V8 code cache for the server bundle on Node < 22.1, where `module.enableCompileCache()` is missing
// (issue 13: start → first tools/list). Compiling the 590 kB bundle, and the functions a start runs,
// is a third of a start; with the cache V8 deserializes the compiled code instead.
//
// The bundle is CommonJS, compiled here as one vm.Script with `cachedData` read from a per-user cache
// directory. The cache file's name carries V8's version and a hash of the bundle (V8 itself checks only
// the source's length); V8 checks the rest and may still reject it (`cachedDataRejected`). A missing
// or rejected cache is written a second after the start, or at exit if that comes first, so it holds
// what starting and answering tools/list compiled; atomically (temp + rename). Any failure only costs
// the cache.
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';

/**
 * Where a tool keeps per-user caches on this platform (`~/.cache/<name>` on Linux), or undefined when
 * there is no absolute place for it (no home directory). A relative XDG_CACHE_HOME is ignored, as the
 * XDG spec asks.
 */
export function userCacheDir(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const home = os.homedir();
  let dir: string;
  if (process.platform === 'win32') {
    dir = path.join(env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'), name, 'Cache');
  } else if (process.platform === 'darwin') {
    dir = path.join(home, 'Library', 'Caches', name);
  } else {
    const xdg = env.XDG_CACHE_HOME;
    dir = path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.cache'), name);
  }
  return path.isAbsolute(dir) ? dir : undefined;
}

export interface CachedLoad<T> {
  exports: T;
  /** 'hit': compiled from the cache; 'miss': none yet; 'rejected': V8 refused it; 'off': no directory. */
  cache: 'hit' | 'miss' | 'rejected' | 'off';
}

/** When a missing or rejected cache is written: after the start has answered initialize and tools/list. */
const WRITE_AFTER_MS = 1000;
const WRAPPER_START = '(function (exports, require, module, __filename, __dirname, __loaderImport) { ';
const WRAPPER_END = '\n})';

/**
 * Loads a CommonJS file as `require` would (its own `require`, `module`, `__filename`), compiled with
 * the code cache kept in `cacheDir` (no cache when it is undefined). The file gets `importEsm` as
 * `__loaderImport` for its dynamic imports (see scripts/loader-imports-plugin.mjs): `import()` in code
 * from a code cache fails on Node 20. Pass an `import()` of a module in the file's directory.
 */
export function loadWithCodeCache<T>(
  file: string,
  cacheDir: string | undefined,
  importEsm: (specifier: string) => Promise<unknown>,
): CachedLoad<T> {
  const bytes = readFileSync(file);
  // The build writes the bundle in ASCII (scripts/loader-imports-plugin.mjs): a one-byte string.
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  const cacheFile = cacheDir && path.join(cacheDir, cacheName(bytes));
  let cached: Buffer | undefined;
  if (cacheFile) {
    try {
      cached = readFileSync(cacheFile);
    } catch {
      // none yet (or unreadable): compile from source and write one
    }
  }
  const script = new vm.Script(WRAPPER_START + source + WRAPPER_END, {
    filename: file,
    ...(cached ? { cachedData: cached } : {}),
  });
  const cache = !cacheFile ? 'off' : !cached ? 'miss' : script.cachedDataRejected ? 'rejected' : 'hit';
  if (cacheFile && cache !== 'hit') {
    let written = false;
    const write = () => {
      if (written) return;
      written = true;
      writeCache(cacheFile, () => script.createCachedData());
    };
    // Once the start and the first answers are compiled (not later: a cache of everything a long
    // session ran would make every start deserialize code it may not need), or at exit if sooner.
    setTimeout(write, WRITE_AFTER_MS).unref();
    process.once('exit', write);
  }
  const wrapped = script.runInThisContext() as (...args: unknown[]) => void;
  const module = { exports: {} as T };
  const require = createRequire(file);
  wrapped.call(module.exports, module.exports, require, module, file, path.dirname(file), importEsm);
  return { exports: module.exports, cache };
}

function cacheName(bytes: Buffer): string {
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  return `v8-${process.versions.v8}-${process.arch}-${hash}.cache`;
}

/** Replaces the directory's cache (one per bundle: older ones are removed), atomically; never throws. */
function writeCache(file: string, data: () => Buffer): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    const dir = path.dirname(file);
    mkdirSync(dir, { recursive: true });
    writeFileSync(temp, data(), { mode: 0o600 });
    renameSync(temp, file);
    for (const name of readdirSync(dir)) {
      if (name.endsWith('.cache') && name !== path.basename(file))
        rmSync(path.join(dir, name), { force: true });
    }
  } catch {
    try {
      rmSync(temp, { force: true });
    } catch {
      // the directory is unusable: nothing was written
    }
  }
}
