// A map of what a node keeps in memory to spare itself work (API keys, webhook endpoints' targets and opened secrets,
// parsed URLs, prepared statements), bounded so that it does not grow with what it is asked: at most `maxEntries`,
// the least recently used dropped first, so that a full map keeps the entries in use rather than starting over.
// docs/scaling.md lists every one with its bound, for sizing a node's memory.

/** Its values are never undefined: `get` answers undefined for a key not kept. */
export class BoundedMap<K, V> {
  /** In order of use, the least recently used first: the first entry is the one to drop. */
  private readonly entries = new Map<K, V>();

  constructor(readonly maxEntries: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The value kept for `key`, which becomes the most recently used entry; undefined when none is kept. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Keeps `value` for `key` as the most recently used entry, dropping the least recently used when full. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, value);
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  /** The entries, least recently used first, without counting as a use. */
  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries[Symbol.iterator]();
  }

  values(): MapIterator<V> {
    return this.entries.values();
  }
}
