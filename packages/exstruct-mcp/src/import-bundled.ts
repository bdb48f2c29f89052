import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Imports the build's bundle of a module (one file to load instead of its many modules) where the build
 * wrote one, else the module itself (`modules`: running from src, as the tests do).
 */
export function importBundled<T>(bundle: URL, modules: () => Promise<T>): Promise<T> {
  return existsSync(fileURLToPath(bundle)) ? (import(bundle.href) as Promise<T>) : modules();
}
