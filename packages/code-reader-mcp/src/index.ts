#!/usr/bin/env node
import module from 'node:module';

// V8's compile cache (Node ≥ 22.1; absent on 20, where this is skipped) keeps the bundled server's
// compiled code between starts, so a later start skips most of the parse/compile (issue 13: start time).
// It must be on before the server's module is loaded, hence the dynamic import below.
const withCache = module as { enableCompileCache?: () => unknown };
withCache.enableCompileCache?.();
await import('./main.js');
