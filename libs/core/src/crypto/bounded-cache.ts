/**
 * A map that keeps at most `capacity` entries, forgetting the oldest first: for values that are
 * costly to compute and always the same for a key (an HMAC, a verified token's claims), so a busy
 * process reuses them without holding every key it ever saw.
 */
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  set(key: K, value: V): V {
    if (this.entries.size >= this.capacity && !this.entries.has(key)) {
      this.entries.delete(this.entries.keys().next().value as K);
    }
    this.entries.set(key, value);
    return value;
  }

  /** The cached value, or `make(key)` remembered. */
  getOrSet(key: K, make: (key: K) => V): V {
    return this.entries.get(key) ?? this.set(key, make(key));
  }

  get size(): number {
    return this.entries.size;
  }
}
