// Rate limiting and idempotency of the /v1 surface, built from the configuration: the in-process limiter, or the
// Redis one when GATEWAY_REDIS_URL is set; the idempotency records with their periodic purge. The composition root
// passes `extensions` to buildApp (rate limit first: a refused request never claims an Idempotency-Key).
import type { FastifyInstance } from "fastify";
import type { GatewayConfig } from "../config.ts";
import type { Clock } from "../core/clock.ts";
import { IdempotencyRecords } from "../core/idempotency/records.ts";
import type { RateLimiter } from "../core/rate-limit/limiter.ts";
import { MemoryRateLimiter } from "../core/rate-limit/memory-limiter.ts";
import { RedisRateLimiter } from "../core/rate-limit/redis-limiter.ts";
import { PeriodicPurge } from "../store/batched-purge.ts";
import type { Store } from "../store/database.ts";
import { idempotency } from "./idempotency/index.ts";
import type { Metrics } from "./metrics.ts";
import { rateLimit } from "./rate-limit/index.ts";

export interface GuardsLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

export interface RequestGuards {
  extensions: ((app: FastifyInstance) => void)[];
  limiter: RateLimiter;
  idempotency: IdempotencyRecords;
  close(): Promise<void>;
}

const purgeIntervalMs = 5 * 60_000;
const redisStartWaitMs = 2_000;

export async function createRequestGuards(input: {
  config: GatewayConfig;
  store: Store;
  clock: Clock;
  metrics: Metrics;
  log: GuardsLog;
}): Promise<RequestGuards> {
  const { config, store, clock, metrics, log } = input;
  let limiter: RateLimiter;
  if (config.redisUrl && config.rateLimitsEnabled) {
    const redis = new RedisRateLimiter({
      url: config.redisUrl,
      keyPrefix: config.redisKeyPrefix,
      commandTimeoutMs: config.redisCommandTimeoutMs,
      onUnavailable: (error) =>
        log.warn({ err: error }, "Redis is unavailable: rate limits are not enforced until it answers again"),
      onRecovered: () => log.info({}, "Redis answers again: rate limits are enforced"),
    });
    await redis.waitUntilReady(redisStartWaitMs);
    limiter = redis;
  } else {
    limiter = new MemoryRateLimiter(clock);
  }

  const records = new IdempotencyRecords(store.db, clock);
  // Expired records are already ignored by claims; the purge only gives the space back. Every node runs it.
  const purge = new PeriodicPurge(
    { idempotency: (stopping) => records.purgeExpired(stopping) },
    purgeIntervalMs,
    (what, error) => log.warn({ err: error }, `${what} purge failed`),
  );

  return {
    extensions: [
      ...(config.rateLimitsEnabled
        ? [
            rateLimit({
              limiter,
              defaultPolicy: { perMinute: config.rateLimitPerMinute, burst: config.rateLimitBurst },
              metrics,
            }),
          ]
        : []),
      idempotency({ records, waitMs: config.idempotencyWaitMs, metrics }),
    ],
    limiter,
    idempotency: records,
    async close() {
      await purge.stop();
      await limiter.close();
    },
  };
}
