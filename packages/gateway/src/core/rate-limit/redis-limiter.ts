// The limiter shared by every node through Redis: GCRA in one Lua script (one round trip) on Redis's own clock, so
// the nodes' clocks do not matter. Redis must not become a single point of failure: no offline queue and a short
// command timeout make a missing Redis fail fast, the request is let through (fail open), and the client keeps
// reconnecting so that limits apply again as soon as Redis answers. Checks made during one turn of the event loop
// go to Redis together, one write and one read for all of them.
import { Redis } from "ioredis";
import { gcraParameters, type RateLimitDecision, type RateLimitPolicy } from "./gcra.ts";
import type { RateLimiter } from "./limiter.ts";

// Times are milliseconds since 2023-11-14 (Unix 1700000000), not since 1970: a double then still resolves 0.02 µs,
// where at 1.8e12 ms it would round away the sub-millisecond intervals of high limits.
const gcraScript = `
local time = redis.call('TIME')
local now = (tonumber(time[1]) - 1700000000) * 1000 + tonumber(time[2]) / 1000
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end
if tat - now > tolerance + interval * 1e-3 then
  return {0, 0, tostring(tat - now), tostring(tat - now - tolerance)}
end
local new_tat = tat + interval
redis.call('SET', KEYS[1], string.format('%.4f', new_tat), 'PX', math.max(1, math.ceil(new_tat - now)))
local remaining = math.floor((tolerance - (new_tat - now)) / interval + 1 + 1e-3)
if remaining < 0 then remaining = 0 end
return {1, remaining, tostring(new_tat - now), '0'}
`;

type GcraReply = [number, number, string, string];
type ScriptedRedis = Redis & { gatewayGcra(key: string, intervalMs: number, toleranceMs: number): Promise<GcraReply> };
type ScriptedPipeline = { gatewayGcra(key: string, intervalMs: number, toleranceMs: number): unknown };

interface PendingCheck {
  key: string;
  intervalMs: number;
  toleranceMs: number;
  settle(reply: GcraReply | Error): void;
}

const asError = (error: unknown) => (error instanceof Error ? error : new Error(String(error)));

export interface RedisLimiterOptions {
  url: string;
  /** Prefix of every key this gateway writes (several deployments or test runs can share one Redis). */
  keyPrefix: string;
  commandTimeoutMs: number;
  /** Called once when Redis stops answering, and once when it answers again. */
  onUnavailable(error: unknown): void;
  onRecovered(): void;
}

export class RedisRateLimiter implements RateLimiter {
  readonly kind = "redis";
  private readonly redis: ScriptedRedis;
  private unavailable = false;
  private pending: PendingCheck[] = [];

  constructor(private readonly options: RedisLimiterOptions) {
    const redis = new Redis(options.url, {
      keyPrefix: options.keyPrefix,
      enableOfflineQueue: false,
      commandTimeout: options.commandTimeoutMs,
      maxRetriesPerRequest: 0,
      // Reconnect for ever, at least once a second, so that recovery is quick.
      retryStrategy: (times) => Math.min(50 * 2 ** times, 1000),
    });
    redis.defineCommand("gatewayGcra", { numberOfKeys: 1, lua: gcraScript });
    redis.on("error", (error) => this.markUnavailable(error));
    redis.on("ready", () => this.markAvailable());
    this.redis = redis as ScriptedRedis;
  }

  /** Resolves true once connected, false after `timeoutMs` (the gateway then starts and fails open meanwhile). */
  async waitUntilReady(timeoutMs: number): Promise<boolean> {
    if (this.redis.status === "ready") return true;
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(false), timeoutMs);
      const done = (ready: boolean) => {
        clearTimeout(timer);
        this.redis.off("ready", onReady);
        resolve(ready);
      };
      const onReady = () => done(true);
      this.redis.on("ready", onReady);
    });
  }

  async check(subject: string, policy: RateLimitPolicy): Promise<RateLimitDecision | undefined> {
    const { intervalMs, toleranceMs } = gcraParameters(policy);
    const reply = await new Promise<GcraReply | Error>((settle) => {
      this.pending.push({ key: `rl:${subject}`, intervalMs, toleranceMs, settle });
      // After the sockets ready in this turn have all been read: their checks share one round trip.
      if (this.pending.length === 1) setImmediate(() => this.flush());
    });
    if (reply instanceof Error) {
      this.markUnavailable(reply);
      return undefined;
    }
    this.markAvailable();
    const [allowed, remaining, resetMs, retryAfterMs] = reply;
    return { allowed: allowed === 1, remaining, resetMs: Number(resetMs), retryAfterMs: Number(retryAfterMs) };
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 1) {
      const [check] = batch as [PendingCheck];
      this.redis
        .gatewayGcra(check.key, check.intervalMs, check.toleranceMs)
        .then(check.settle, (error: unknown) => check.settle(asError(error)));
      return;
    }
    const pipeline = this.redis.pipeline();
    for (const check of batch) {
      (pipeline as unknown as ScriptedPipeline).gatewayGcra(check.key, check.intervalMs, check.toleranceMs);
    }
    pipeline.exec().then(
      (results) =>
        batch.forEach((check, i) => {
          const [error, reply] = results?.[i] ?? [new Error("Redis gave no reply"), undefined];
          check.settle(error ? asError(error) : (reply as GcraReply));
        }),
      (error: unknown) => {
        for (const check of batch) check.settle(asError(error));
      },
    );
  }

  private markUnavailable(error: unknown): void {
    if (this.unavailable) return;
    this.unavailable = true;
    this.options.onUnavailable(error);
  }

  private markAvailable(): void {
    if (!this.unavailable) return;
    this.unavailable = false;
    this.options.onRecovered();
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
