// The in-process limiter (no Redis configured): one theoretical arrival time per key in a Map, on the gateway's
// clock. Entries whose TAT has passed are equivalent to absent ones and are swept.
import type { Clock } from "../clock.ts";
import { gcra, type RateLimitDecision, type RateLimitPolicy } from "./gcra.ts";
import type { RateLimiter } from "./limiter.ts";

const sweepIntervalMs = 60_000;

export class MemoryRateLimiter implements RateLimiter {
  readonly kind = "memory";
  private readonly tats = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly clock: Clock) {
    this.sweeper = setInterval(() => this.sweep(), sweepIntervalMs);
    this.sweeper.unref();
  }

  check(subject: string, policy: RateLimitPolicy): RateLimitDecision {
    const decision = gcra(this.tats.get(subject), this.clock.now(), policy);
    if (decision.allowed) this.tats.set(subject, decision.tat);
    return decision;
  }

  private sweep(): void {
    const now = this.clock.now();
    for (const [subject, tat] of this.tats) if (tat <= now) this.tats.delete(subject);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}
