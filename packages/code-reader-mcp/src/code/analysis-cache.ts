import { putRecent } from '../util/lru.js';

/**
 * Analyses kept by file and content (spec 001: the file-metrics cache expires with the content hash).
 * Agents measure the same files again and again; a file whose content is unchanged is not parsed or
 * tokenized again. Keyed by content, so an edit is seen even within the same second.
 */
export class ContentCache<V> {
  private readonly entries = new Map<string, { hash: string; value: V }>();
  hits = 0;
  misses = 0;

  constructor(private readonly maxEntries = 256) {}

  get(key: string, hash: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.hash !== hash) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    putRecent(this.entries, key, entry, this.maxEntries);
    return entry.value;
  }

  clear(): void {
    this.entries.clear();
  }

  set(key: string, hash: string, value: V): void {
    putRecent(this.entries, key, { hash, value }, this.maxEntries);
  }
}
