import { readdir, readFile } from 'node:fs/promises';
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
 * The page's files, all read into memory once (about 0.5 MB, so the first page load waits for no disk).
 * Only the files the build wrote are served: `index.html` and the names directly inside `assets/`;
 * any other name is not found without touching the disk or the cache, so the memory used is bounded by
 * the build, whatever names are asked for.
 */
export class StaticFiles {
  private loading: Promise<Map<string, StaticFile>> | undefined;

  constructor(private readonly dir: string = UI_DIR) {}

  /** Reads every file of the page (once; a failed read is tried again on the next request). */
  load(): Promise<Map<string, StaticFile>> {
    this.loading ??= this.readAll();
    this.loading.catch(() => (this.loading = undefined));
    return this.loading;
  }

  async index(): Promise<StaticFile | undefined> {
    return (await this.load()).get('index.html');
  }

  async asset(name: string): Promise<StaticFile | undefined> {
    return (await this.load()).get(`assets/${name}`);
  }

  /** How many files are held (for tests: it never grows with the names asked for). */
  async size(): Promise<number> {
    return (await this.load()).size;
  }

  private async readAll(): Promise<Map<string, StaticFile>> {
    const files = new Map<string, StaticFile>();
    const names = ['index.html'];
    try {
      for (const entry of await readdir(path.join(this.dir, 'assets'), { withFileTypes: true }))
        if (entry.isFile()) names.push(`assets/${entry.name}`);
    } catch {
      // not built: index.html is missing too, and the server says so
    }
    await Promise.all(
      names.map(async (name) => {
        const body = await readFile(path.join(this.dir, name)).catch(() => undefined);
        if (body) files.set(name, { body, type: TYPES[path.extname(name)] ?? 'application/octet-stream' });
      }),
    );
    return files;
  }
}
