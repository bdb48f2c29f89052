#!/usr/bin/env node
// The bin. It runs the build's bundle of the server (scripts/bundle-server.mjs: one file costs less time
// and memory to load than its ~300 modules) where there is one, else the server's modules.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bundle = new URL('./stdio-bundle/stdio-server.js', import.meta.url);
await (existsSync(fileURLToPath(bundle)) ? import(bundle.href) : import('./stdio-server.js'));
