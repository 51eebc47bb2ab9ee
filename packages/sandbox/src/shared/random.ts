// Seeded pseudo-random numbers for fixtures: the same seed gives the same data on every build and every machine.

export interface SeededRandom {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
  /** A new array with `count` distinct items of `items`, in random order. */
  sample<T>(items: readonly T[], count: number): T[];
}

/** FNV-1a over the UTF-16 code units: turns a readable seed such as "catalog:products" into 32 bits. */
function hashSeed(seed: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) {
    hash ^= seed.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** mulberry32: tiny, fast and good enough for fixtures (not for anything secret). */
export function seededRandom(seed: string): SeededRandom {
  let state = hashSeed(seed);
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[int(0, items.length - 1)] as T;
  };
  const sample = <T>(items: readonly T[], count: number): T[] => {
    const pool = [...items];
    for (let i = pool.length - 1; i > 0; i--) {
      const j = int(0, i);
      [pool[i], pool[j]] = [pool[j] as T, pool[i] as T];
    }
    return pool.slice(0, Math.min(count, pool.length));
  };
  return { next, int, pick, chance: (p) => next() < p, sample };
}

/** Rounds a yen amount to a shop-like price: 1,980 / 2,480 / 598 rather than 2,013. */
export function shopPrice(raw: number): number {
  if (raw < 1000) return Math.max(98, Math.round(raw / 100) * 100 - 2);
  const hundreds = Math.round(raw / 100) * 100;
  const ending = hundreds % 1000 >= 500 ? 980 : 480;
  return Math.floor(hundreds / 1000) * 1000 + ending;
}
