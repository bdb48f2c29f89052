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
 * The page's files. Only the files the build wrote are served: `index.html` and the names directly inside
 * `assets/`, listed once; any other name is not found without touching the disk, so the memory used is
 * bounded by the build whatever names are asked for. The page itself (index.html and what it loads
 * first) is read when the server starts, so the first page load waits for no disk; chunks the page
 * loads later (highlight.js, mermaid) are read on first use and kept.
 */
export class StaticFiles {
  /** Every file the build wrote, by name; `file` is read when first needed and then kept. */
  private listing: Promise<Map<string, { file?: Promise<StaticFile | undefined> }>> | undefined;

  constructor(private readonly dir: string = UI_DIR) {}

  /** Lists the page's files and reads the first page's (once; a failure is tried again next time). */
  load(): Promise<Map<string, { file?: Promise<StaticFile | undefined> }>> {
    this.listing ??= this.list();
    this.listing.catch(() => (this.listing = undefined));
    return this.listing;
  }

  index(): Promise<StaticFile | undefined> {
    return this.get('index.html');
  }

  asset(name: string): Promise<StaticFile | undefined> {
    return this.get(`assets/${name}`);
  }

  /** How many files the server may serve (for tests: it never grows with the names asked for). */
  async size(): Promise<number> {
    return (await this.load()).size;
  }

  private async get(name: string): Promise<StaticFile | undefined> {
    const entry = (await this.load()).get(name);
    if (!entry) return undefined;
    entry.file ??= this.read(name);
    return entry.file;
  }

  private read(name: string): Promise<StaticFile | undefined> {
    return readFile(path.join(this.dir, name)).then(
      (body) => ({ body, type: TYPES[path.extname(name)] ?? 'application/octet-stream' }),
      () => undefined,
    );
  }

  private async list(): Promise<Map<string, { file?: Promise<StaticFile | undefined> }>> {
    const files = new Map<string, { file?: Promise<StaticFile | undefined> }>();
    const index = this.read('index.html');
    files.set('index.html', { file: index });
    try {
      for (const entry of await readdir(path.join(this.dir, 'assets'), { withFileTypes: true }))
        if (entry.isFile()) files.set(`assets/${entry.name}`, {});
    } catch {
      // not built: index.html is missing too, and the server says so
    }
    // What index.html loads is read now, before the first page asks for it.
    const html = (await index)?.body.toString('utf8') ?? '';
    for (const [, name] of html.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)) {
      const entry = files.get(name!);
      if (entry) entry.file ??= this.read(name!);
    }
    return files;
  }
}
