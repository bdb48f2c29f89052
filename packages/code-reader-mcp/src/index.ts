#!/usr/bin/env node
// The bin (built as dist/index.cjs). The server is one CommonJS bundle (dist/server-bundle.cjs: SDK, zod, ajv, core inlined), so
// a start resolves and compiles one file, with its compiled code cached between starts (issue 13: start
// time): Node's own compile cache on Node ≥ 22.1, a V8 code cache of our own on Node 20
// (src/start/code-cache.ts). NODE_DISABLE_COMPILE_CACHE=1 turns either off.
import module, { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { loadWithCodeCache, userCacheDir } from './start/code-cache.js';

type Bundle = { main(): Promise<void> };

const BUNDLE = fileURLToPath(new URL('./server-bundle.cjs', import.meta.url));
const builtIn = module as { enableCompileCache?: () => unknown };
let bundle: Bundle;
if (builtIn.enableCompileCache) {
  builtIn.enableCompileCache();
  bundle = createRequire(import.meta.url)(BUNDLE) as Bundle;
} else {
  const off = process.env.NODE_DISABLE_COMPILE_CACHE;
  let dir: string | undefined;
  try {
    dir = off && off !== '0' ? undefined : userCacheDir('code-reader-mcp');
  } catch {
    dir = undefined; // no home directory (os.homedir() throws): start without a cache
  }
  // This module sits beside the bundle, so its import() resolves what the bundle's would.
  bundle = loadWithCodeCache<Bundle>(BUNDLE, dir, (specifier) => import(specifier)).exports;
}
bundle.main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
