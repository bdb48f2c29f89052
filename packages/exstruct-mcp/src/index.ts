#!/usr/bin/env node
// The bin. V8 is told to keep the young generation small before the server's modules are even parsed
// (a static import would be compiled with the rest first): see young-generation.ts. Its heaps, the job
// threads' too, grow little past what they hold: see heap-growth.ts. The server's thread runs the build's
// bundle of the server where there is one (scripts/bundle-server.mjs: one file costs less memory than
// its ~400 modules), else its modules.
import { limitHeapGrowth } from './heap-growth.js';
import { importBundled } from './import-bundled.js';
import { holdYoungGeneration } from './young-generation.js';

holdYoungGeneration();
limitHeapGrowth();
await importBundled(
  new URL('./stdio-bundle/stdio-server.js', import.meta.url),
  () => import('./stdio-server.js'),
);
