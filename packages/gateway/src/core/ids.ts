// Random identifiers and secrets: a prefix and base62 characters drawn from the CSPRNG without modulo bias.
import { randomBytes } from "node:crypto";

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 62 * 4: bytes above it would favour the first characters.
      if (byte < 248) out += base62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export const newId = (prefix: string, length = 22) => `${prefix}_${randomBase62(length)}`;

/** The last time-ordered id's millisecond and random part, in this process. */
let lastOrdered = { ms: -1, random: "" };

/**
 * An identifier that sorts by creation time: the milliseconds since the epoch in 8 base62 characters (enough until
 * the year 8900), then random characters, in the same shape as newId. Rows keyed by such ids are inserted at the end
 * of their index rather than on a random page of it. `now` is the gateway's clock. Within one millisecond a process's
 * ids still sort in the order they were made (the random part of the one before, plus one, as monotonic ULIDs do):
 * two events recorded in one transaction are listed in the order they happened.
 */
export function timeOrderedId(prefix: string, now: number, length = 22): string {
  const ms = Math.max(0, Math.floor(now));
  let time = "";
  for (let n = ms, i = 0; i < 8; i++, n = Math.floor(n / 62)) time = base62[n % 62] + time;
  const randomLength = length - 8;
  const next = ms === lastOrdered.ms && lastOrdered.random.length === randomLength && increment(lastOrdered.random);
  const random = next || randomBase62(randomLength);
  lastOrdered = { ms, random };
  return `${prefix}_${time}${random}`;
}

/** The base62 string one above `digits`, of the same length; undefined past the largest (then a fresh draw). */
function increment(digits: string): string | undefined {
  for (let i = digits.length - 1; i >= 0; i--) {
    const digit = base62.indexOf(digits[i] as string);
    if (digit < 61) return digits.slice(0, i) + base62[digit + 1] + "0".repeat(digits.length - i - 1);
  }
  return undefined;
}

export const base62Pattern = (prefix: string, length: number) => new RegExp(`^${prefix}_[0-9A-Za-z]{${length}}$`);

/**
 * Identifiers made often (one per request): a random prefix drawn once per process and a counter, in base62, with the
 * same shape as randomBase62(length). Unique across processes with overwhelming probability; not secret.
 */
export function sequentialIds(length: number, prefixLength = 8): () => string {
  const prefix = randomBase62(prefixLength);
  const counterLength = length - prefixLength;
  let counter = 0;
  return () => {
    counter += 1;
    let n = counter;
    let digits = "";
    for (let i = 0; i < counterLength; i++) {
      digits = base62[n % 62] + digits;
      n = Math.floor(n / 62);
    }
    return prefix + digits;
  };
}
