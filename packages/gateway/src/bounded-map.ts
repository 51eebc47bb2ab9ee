// A map of what a node keeps in memory to spare itself work (API keys, webhook endpoints' targets and opened secrets,
// parsed URLs, prepared statements), bounded so that it does not grow with what it is asked: at most `maxEntries`,
// the least recently used dropped first, so that a full map keeps the entries in use rather than starting over. With
// `maxIdleMs`, an entry not used for that long is dropped as well, the next time the map is used: entries nothing
// asks for any more (an endpoint deleted through another node) leave without waiting for the map to fill.
// docs/scaling.md lists every one with its bounds, for sizing a node's memory.

export interface BoundedMapOptions {
  /** How long an entry may go unused before it is dropped; without it only the count bounds the map. */
  maxIdleMs?: number;
  /**
   * The clock idle time is counted on: monotonic, so that the machine's clock set back does not keep entries longer,
   * nor one set forward drop them all.
   */
  now?: () => number;
}

interface Entry<V> {
  value: V;
  usedAt: number;
}

/** Its values are never undefined: `get` answers undefined for a key not kept. */
export class BoundedMap<K, V> {
  /** In order of use, the least recently used first: the first entry is the one to drop. */
  private readonly entries = new Map<K, Entry<V>>();
  private readonly maxIdleMs: number;
  private readonly clock: () => number;

  constructor(
    readonly maxEntries: number,
    options: BoundedMapOptions = {},
  ) {
    this.maxIdleMs = options.maxIdleMs ?? Number.POSITIVE_INFINITY;
    // Without an idle bound, a use costs no reading of the clock.
    this.clock = options.maxIdleMs === undefined ? () => 0 : (options.now ?? (() => performance.now()));
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value kept for `key`, which becomes the most recently used entry; undefined when none is kept. */
  get(key: K): V | undefined {
    const now = this.dropIdle();
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    entry.usedAt = now;
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` for `key` as the most recently used entry, dropping the least recently used when full. */
  set(key: K, value: V): void {
    const now = this.dropIdle();
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, { value, usedAt: now });
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  /** The entries, least recently used first, without counting as a use. */
  *[Symbol.iterator](): IterableIterator<[K, V]> {
    for (const [key, entry] of this.entries) yield [key, entry.value];
  }

  *values(): IterableIterator<V> {
    for (const entry of this.entries.values()) yield entry.value;
  }

  /** Drops the entries unused for `maxIdleMs`, the least recently used first (they lead); answers the time. */
  private dropIdle(): number {
    const now = this.clock();
    if (this.maxIdleMs === Number.POSITIVE_INFINITY) return now;
    for (const [key, entry] of this.entries) {
      if (now - entry.usedAt < this.maxIdleMs) break;
      this.entries.delete(key);
    }
    return now;
  }
}
