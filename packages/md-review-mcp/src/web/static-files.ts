import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the built page is: `dist/ui` of this package (the same from src/ under tests and from dist/). */
export const UI_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/ui');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

export interface StaticFile {
  body: Buffer;
  type: string;
}

/**
 * The page's files, read once. Only names made of safe characters directly inside `assets/` are served,
 * so no request can name a file elsewhere.
 */
export class StaticFiles {
  private readonly cache = new Map<string, Promise<StaticFile | undefined>>();

  constructor(private readonly dir: string = UI_DIR) {}

  index(): Promise<StaticFile | undefined> {
    return this.load('index.html');
  }

  asset(name: string): Promise<StaticFile | undefined> {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || name.includes('..')) return Promise.resolve(undefined);
    return this.load(`assets/${name}`);
  }

  private load(relative: string): Promise<StaticFile | undefined> {
    let entry = this.cache.get(relative);
    if (!entry) {
      entry = readFile(path.join(this.dir, relative)).then(
        (body) => ({ body, type: TYPES[path.extname(relative)] ?? 'application/octet-stream' }),
        () => undefined,
      );
      this.cache.set(relative, entry);
    }
    return entry;
  }
}
