import type { Db } from '../local/database.js';

export type CacheKind = 'folder' | 'sheet' | 'project_folder' | 'spreadsheet' | 'body';

/**
 * Ids the Google backend learned (folder ids, sheet ids) and the indexed start of document texts, kept
 * in the local store's `remote_cache` table. A cached id is a hint, never the truth: a stale one fails
 * its request and is looked up again.
 */
export class RemoteCache {
  constructor(private readonly db: Db) {}

  get(kind: CacheKind, key: string): string | undefined {
    const row = this.db
      .prepare('SELECT value FROM remote_cache WHERE kind = ? AND key = ?')
      .get(kind, key) as { value: string } | undefined;
    return row?.value;
  }

  set(kind: CacheKind, key: string, value: string): void {
    this.db
      .prepare(
        'INSERT INTO remote_cache (kind, key, value) VALUES (?, ?, ?) ON CONFLICT (kind, key) DO UPDATE SET value = excluded.value',
      )
      .run(kind, key, value);
  }

  delete(kind: CacheKind, key: string): void {
    this.db.prepare('DELETE FROM remote_cache WHERE kind = ? AND key = ?').run(kind, key);
  }
}
