// The limiter shared by every node through Redis: GCRA in one Lua script on Redis's own clock, so the nodes' clocks
// do not matter. Redis must not become a single point of failure: no offline queue and a short command timeout make a
// missing Redis fail fast, the request is let through (fail open), and the client keeps reconnecting so that limits
// apply again as soon as Redis answers. The checks made during one turn of the event loop go to Redis together, as
// one call of the script that decides each of them in turn: one command to build, send and parse, not one per check.
import { Redis } from "ioredis";
import { gcraParameters, type RateLimitDecision, type RateLimitPolicy } from "./gcra.ts";
import type { RateLimiter } from "./limiter.ts";

// One call decides KEYS[i] with ARGV[2i-1] (the emission interval) and ARGV[2i] (the tolerance), in order, so that
// checks of one key in the same call see each other; it answers four values per check.
// Times are milliseconds since 2023-11-14 (Unix 1700000000), not since 1970: a double then still resolves 0.02 µs,
// where at 1.8e12 ms it would round away the sub-millisecond intervals of high limits.
const gcraScript = `
local time = redis.call('TIME')
local now = (tonumber(time[1]) - 1700000000) * 1000 + tonumber(time[2]) / 1000
local out = {}
for i = 1, #KEYS do
  local interval = tonumber(ARGV[2 * i - 1])
  local tolerance = tonumber(ARGV[2 * i])
  local tat = tonumber(redis.call('GET', KEYS[i])) or now
  if tat < now then tat = now end
  local n = #out
  if tat - now > tolerance + interval * 1e-3 then
    out[n + 1], out[n + 2], out[n + 3], out[n + 4] = 0, 0, tostring(tat - now), tostring(tat - now - tolerance)
  else
    local new_tat = tat + interval
    redis.call('SET', KEYS[i], string.format('%.4f', new_tat), 'PX', math.max(1, math.ceil(new_tat - now)))
    local remaining = math.floor((tolerance - (new_tat - now)) / interval + 1 + 1e-3)
    if remaining < 0 then remaining = 0 end
    out[n + 1], out[n + 2], out[n + 3], out[n + 4] = 1, remaining, tostring(new_tat - now), '0'
  end
end
return out
`;

/** The script's answer: allowed (1 or 0), remaining, reset ms and retry-after ms, for each check in turn. */
type GcraReplies = (number | string)[];
type ScriptedRedis = Redis & {
  gatewayGcra(keyCount: number, ...keysThenArgs: (string | number)[]): Promise<GcraReplies>;
};

// A call holds Redis for the time it runs (a few microseconds a check): a turn with more checks makes several calls.
const maxChecksPerCall = 256;

interface PendingCheck {
  key: string;
  intervalMs: number;
  toleranceMs: number;
  settle(decision: RateLimitDecision | Error): void;
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
    // No fixed number of keys: each call passes its own, and ioredis prefixes that many arguments as keys.
    redis.defineCommand("gatewayGcra", { lua: gcraScript });
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
    const decision = await new Promise<RateLimitDecision | Error>((settle) => {
      this.pending.push({ key: `rl:${subject}`, intervalMs, toleranceMs, settle });
      // After the sockets ready in this turn have all been read: their checks share one call.
      if (this.pending.length === 1) setImmediate(() => this.flush());
    });
    if (decision instanceof Error) {
      this.markUnavailable(decision);
      return undefined;
    }
    this.markAvailable();
    return decision;
  }

  private flush(): void {
    const pending = this.pending;
    this.pending = [];
    for (let from = 0; from < pending.length; from += maxChecksPerCall) {
      const batch = pending.slice(from, from + maxChecksPerCall);
      const keysThenArgs: (string | number)[] = batch.map((check) => check.key);
      for (const check of batch) keysThenArgs.push(check.intervalMs, check.toleranceMs);
      this.redis.gatewayGcra(batch.length, ...keysThenArgs).then(
        (replies) =>
          batch.forEach((check, i) => {
            const [allowed, remaining, resetMs, retryAfterMs] = replies.slice(4 * i, 4 * i + 4);
            check.settle(
              retryAfterMs === undefined
                ? new Error("Redis answered fewer decisions than were asked for")
                : {
                    allowed: allowed === 1,
                    remaining: Number(remaining),
                    resetMs: Number(resetMs),
                    retryAfterMs: Number(retryAfterMs),
                  },
            );
          }),
        (error: unknown) => {
          for (const check of batch) check.settle(asError(error));
        },
      );
    }
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
