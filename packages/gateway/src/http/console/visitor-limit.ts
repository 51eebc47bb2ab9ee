// A per-visitor token bucket, in memory: the public demo's rate limit (strict on purpose; the demo is for trying,
// not for traffic). Keyed by client address.
import type { Clock } from "../../core/clock.ts";
import { GatewayError } from "../../core/errors.ts";

export interface VisitorLimitSettings {
  perMinute: number;
  burst: number;
}

export class VisitorLimit {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly clock: Clock,
    readonly settings: VisitorLimitSettings,
  ) {}

  /** Takes one request from the visitor's bucket, or throws 429 with the seconds until the next one. */
  take(visitor: string): void {
    const now = this.clock.now();
    const { perMinute, burst } = this.settings;
    const refillPerMs = perMinute / 60_000;
    const bucket = this.buckets.get(visitor) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + (now - bucket.at) * refillPerMs);
    bucket.at = now;
    if (bucket.tokens < 1) {
      const seconds = Math.max(1, Math.ceil((1 - bucket.tokens) / refillPerMs / 1000));
      throw new GatewayError("rate_limited", `The demo allows ${perMinute} requests a minute per visitor`, {
        retryAfterSeconds: seconds,
      });
    }
    bucket.tokens -= 1;
    if (this.buckets.size >= 10_000 && !this.buckets.has(visitor)) this.forgetFull(now);
    this.buckets.set(visitor, bucket);
  }

  private forgetFull(now: number): void {
    const { perMinute, burst } = this.settings;
    for (const [visitor, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.at) * perMinute) / 60_000 >= burst) this.buckets.delete(visitor);
    }
  }
}
