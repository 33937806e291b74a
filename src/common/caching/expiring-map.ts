/**
 * A map whose entries expire a fixed time after they were set, bounded in size: when full it
 * starts over rather than tracking recency, which is cheap and fine for short-lived caches.
 */
export class ExpiringMap<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAt: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The live entry, or undefined when absent or expired (a cached `null` is a live entry). */
  get(key: K): { value: V } | undefined {
    const entry = this.entries.get(key);
    if (!entry) {
      return undefined;
    }
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  set(key: K, value: V): void {
    if (this.entries.size >= this.maxEntries && !this.entries.has(key)) {
      this.entries.clear();
    }
    this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs });
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  deleteWhere(matches: (value: V, key: K) => boolean): void {
    for (const [key, entry] of this.entries) {
      if (matches(entry.value, key)) {
        this.entries.delete(key);
      }
    }
  }
}
