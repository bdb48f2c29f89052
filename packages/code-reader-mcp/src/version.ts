import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
// '../package.json' from src/, from dist/ and from the bundle in dist/ alike.
const manifest = require.resolve('../package.json');
const pkg = require(manifest) as { name: string; version: string };

/** The package's own folder (where package.json and the shipped grammars/ are). */
export const PACKAGE_ROOT = path.dirname(manifest);

export const PACKAGE_NAME = pkg.name;
export const PACKAGE_VERSION = pkg.version;
