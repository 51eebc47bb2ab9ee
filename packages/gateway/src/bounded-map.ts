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

/** An entry, linked in order of use: a hit moves it to the end of the list without touching the JavaScript Map. */
interface Entry<K, V> {
  key: K;
  value: V;
  usedAt: number;
  older: Entry<K, V> | undefined;
  newer: Entry<K, V> | undefined;
}

/** Its values are never undefined: `get` answers undefined for a key not kept. */
export class BoundedMap<K, V> {
  /**
   * The entries by key. Their order of use is kept in a list beside it rather than in the Map's own order: a hit that
   * deleted and re-inserted its key would leave a deleted slot in the Map's hash chain each time until the table is
   * rebuilt, and one key read over and over in a full map cost 30 µs a hit (10,000 entries) instead of 0.2 µs.
   */
  private readonly entries = new Map<K, Entry<K, V>>();
  /** The least recently used entry, the one to drop first, and the most recently used. */
  private oldest: Entry<K, V> | undefined;
  private newest: Entry<K, V> | undefined;
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
    entry.usedAt = now;
    if (entry !== this.newest) {
      this.unlink(entry);
      this.append(entry);
    }
    return entry.value;
  }

  /** Keeps `value` for `key` as the most recently used entry, dropping the least recently used when full. */
  set(key: K, value: V): void {
    const now = this.dropIdle();
    const kept = this.entries.get(key);
    if (kept !== undefined) {
      kept.value = value;
      kept.usedAt = now;
      if (kept !== this.newest) {
        this.unlink(kept);
        this.append(kept);
      }
      return;
    }
    if (this.entries.size >= this.maxEntries && this.oldest !== undefined) this.delete(this.oldest.key);
    const entry: Entry<K, V> = { key, value, usedAt: now, older: undefined, newer: undefined };
    this.entries.set(key, entry);
    this.append(entry);
  }

  delete(key: K): boolean {
    const entry = this.entries.get(key);
    if (entry === undefined) return false;
    this.entries.delete(key);
    this.unlink(entry);
    return true;
  }

  /** The entries, least recently used first, without counting as a use. */
  *[Symbol.iterator](): IterableIterator<[K, V]> {
    // The next entry is taken before yielding: the caller may delete the one it was given.
    for (let entry = this.oldest; entry !== undefined; ) {
      const next = entry.newer;
      yield [entry.key, entry.value];
      entry = next;
    }
  }

  *values(): IterableIterator<V> {
    for (const [, value] of this) yield value;
  }

  /** Drops the entries unused for `maxIdleMs`, the least recently used first (they lead); answers the time. */
  private dropIdle(): number {
    const now = this.clock();
    if (this.maxIdleMs === Number.POSITIVE_INFINITY) return now;
    while (this.oldest !== undefined && now - this.oldest.usedAt >= this.maxIdleMs) this.delete(this.oldest.key);
    return now;
  }

  private unlink(entry: Entry<K, V>): void {
    if (entry.older) entry.older.newer = entry.newer;
    else this.oldest = entry.newer;
    if (entry.newer) entry.newer.older = entry.older;
    else this.newest = entry.older;
    entry.older = undefined;
    entry.newer = undefined;
  }

  private append(entry: Entry<K, V>): void {
    entry.older = this.newest;
    if (this.newest) this.newest.newer = entry;
    else this.oldest = entry;
    this.newest = entry;
  }
}
