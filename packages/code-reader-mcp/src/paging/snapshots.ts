/** A small LRU of results that cursors continue from, so page 2 shows the same list as page 1. */
export class SnapshotStore<V> {
  private readonly entries = new Map<string, { value: V; at: number }>();

  constructor(
    private readonly maxEntries = 16,
    private readonly ttlMs = 15 * 60_000,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (Date.now() - entry.at > this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, at: Date.now() });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }
}
