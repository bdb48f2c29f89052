#!/usr/bin/env node
// The bin. V8 is told to keep the young generation small before the server's modules are even parsed
// (a static import would be compiled with the rest first): see young-generation.ts. Its heaps, the job
// threads' too, grow little past what they hold: see heap-growth.ts.
import { limitHeapGrowth } from './heap-growth.js';
import { holdYoungGeneration } from './young-generation.js';

holdYoungGeneration();
limitHeapGrowth();
await import('./stdio-server.js');
