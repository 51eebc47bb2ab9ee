// What the HTTP layer needs from a rate limiter, in process or shared through Redis.
import type { RateLimitDecision, RateLimitPolicy } from "./gcra.ts";

export interface RateLimiter {
  readonly kind: "memory" | "redis";
  /**
   * Counts one request of `subject` (an API key id). Undefined: no decision could be made (fail open). The
   * in-process limiter answers synchronously, sparing the request a promise.
   */
  check(
    subject: string,
    policy: RateLimitPolicy,
  ): RateLimitDecision | undefined | Promise<RateLimitDecision | undefined>;
  close(): Promise<void>;
}
