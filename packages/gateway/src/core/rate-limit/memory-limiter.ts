// The in-process limiter (no Redis configured): one theoretical arrival time per key in a Map, on the gateway's
// clock. Entries whose TAT has passed are equivalent to absent ones and are swept. A clock set back (an NTP step, the
// database server's on PostgreSQL) moves every TAT back with it: each key keeps what it had left, instead of being
// refused for as long as the step.
import type { Clock } from "../clock.ts";
import { gcra, type RateLimitDecision, type RateLimitPolicy } from "./gcra.ts";
import type { RateLimiter } from "./limiter.ts";

const sweepIntervalMs = 60_000;

export class MemoryRateLimiter implements RateLimiter {
  readonly kind = "memory";
  private readonly tats = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;
  private last = Number.NEGATIVE_INFINITY;

  constructor(private readonly clock: Clock) {
    this.sweeper = setInterval(() => this.sweep(), sweepIntervalMs);
    this.sweeper.unref();
  }

  check(subject: string, policy: RateLimitPolicy): RateLimitDecision {
    const now = this.now();
    const decision = gcra(this.tats.get(subject), now, policy);
    if (decision.allowed) this.tats.set(subject, decision.tat);
    return decision;
  }

  private now(): number {
    const now = this.clock.now();
    if (now < this.last) {
      const back = this.last - now;
      for (const [subject, tat] of this.tats) this.tats.set(subject, tat - back);
    }
    this.last = now;
    return now;
  }

  private sweep(): void {
    const now = this.now();
    for (const [subject, tat] of this.tats) if (tat <= now) this.tats.delete(subject);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}
