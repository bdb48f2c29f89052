#!/usr/bin/env node
// `md-review-desktop <url>`: starts the app with Electron (from this package's dependencies) and returns
// at once; md-review-mcp finds this command on PATH and uses it to show reviews.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const app = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let electron;
try {
  electron = require('electron'); // in Node this is the path of Electron's binary (downloaded on first use)
} catch (error) {
  console.error(`md-review-desktop: Electron is not available (${error.message}). Run: npx install-electron`);
  process.exit(1);
}
const child = spawn(electron, [app, ...process.argv.slice(2)], { detached: true, stdio: 'ignore' });
child.on('error', (error) => {
  console.error(`md-review-desktop: could not start Electron: ${error.message}`);
  process.exit(1);
});
child.on('spawn', () => {
  child.unref();
  process.exit(0);
});
