#!/usr/bin/env node
// The bin. V8 is told to keep the young generation small before the server's modules are even parsed
// (a static import would be compiled with the rest first): see young-generation.ts.
import { holdYoungGeneration } from './young-generation.js';

holdYoungGeneration();
await import('./stdio-server.js');
