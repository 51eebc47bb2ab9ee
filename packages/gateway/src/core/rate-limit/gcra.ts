// The generic cell rate algorithm (GCRA) behind the per-key limits, as one pure function. The Redis script
// (redis-limiter.ts) is the same arithmetic in Lua; both are tested against the same cases.
export interface RateLimitPolicy {
  /** Sustained rate: requests a minute. */
  perMinute: number;
  /** Requests that may be sent at once from a full allowance. */
  burst: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** Requests that could be sent right now after this one. */
  remaining: number;
  /** Milliseconds until the full burst is available again. */
  resetMs: number;
  /** When refused: milliseconds until one request is accepted. */
  retryAfterMs: number;
}

/** Emission interval T (ms between requests at the sustained rate) and tolerance τ = (burst − 1)·T. */
export function gcraParameters(policy: RateLimitPolicy): { intervalMs: number; toleranceMs: number } {
  const intervalMs = 60_000 / policy.perMinute;
  return { intervalMs, toleranceMs: (policy.burst - 1) * intervalMs };
}

// Float rounding (times near 1.8e12 ms resolve 0.24 µs) must not cost a request at an exact boundary: comparisons
// allow a thousandth of an interval.
const slack = 1e-3;

/**
 * One request at `now` against the theoretical arrival time `tat` (undefined: a fresh key). Answers the decision
 * and the new TAT to store (unchanged when refused: a refused request consumes nothing).
 */
export function gcra(
  tat: number | undefined,
  now: number,
  policy: RateLimitPolicy,
): RateLimitDecision & { tat: number } {
  const { intervalMs, toleranceMs } = gcraParameters(policy);
  const base = Math.max(tat ?? now, now);
  if (base - now > toleranceMs + intervalMs * slack) {
    return { allowed: false, remaining: 0, resetMs: base - now, retryAfterMs: base - now - toleranceMs, tat: base };
  }
  const next = base + intervalMs;
  const remaining = Math.max(0, Math.floor((toleranceMs - (next - now)) / intervalMs + 1 + slack));
  return { allowed: true, remaining, resetMs: next - now, retryAfterMs: 0, tat: next };
}
