// The Lua GCRA against the same expectations as gcra.ts, on the shared test Redis under a prefix of its own; and the
// fail-fast behaviour when nothing listens.
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../../test/harness.ts";
import { randomBase62 } from "../ids.ts";
import { RedisRateLimiter } from "./redis-limiter.ts";

const redisUrl = process.env.GATEWAY_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const events: string[] = [];
const prefix = `test-${randomBase62(10)}:`;
const limiter = new RedisRateLimiter({
  url: redisUrl,
  keyPrefix: prefix,
  commandTimeoutMs: 1_000,
  onUnavailable: () => events.push("unavailable"),
  onRecovered: () => events.push("recovered"),
});
afterAll(() => limiter.close());

describe("the Lua GCRA", () => {
  it("allows the burst, counts down, then refuses with the time to the next slot", async () => {
    expect(await limiter.waitUntilReady(5_000)).toBe(true);
    const policy = { perMinute: 1, burst: 5 };
    const decisions = [];
    for (let i = 0; i < 6; i++) decisions.push(await limiter.check("burst", policy));
    expect(decisions.map((d) => d?.allowed)).toEqual([true, true, true, true, true, false]);
    expect(decisions.map((d) => d?.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
    const refused = decisions[5];
    expect(refused?.retryAfterMs).toBeGreaterThan(55_000);
    expect(refused?.retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(refused?.resetMs).toBeGreaterThan(295_000);
    expect(refused?.resetMs).toBeLessThanOrEqual(300_000);
    expect(events).toEqual([]);
  });

  it("handles emission intervals that are not whole milliseconds", async () => {
    const policy = { perMinute: 7, burst: 7 };
    const allowed = [];
    for (let i = 0; i < 8; i++) allowed.push((await limiter.check("fraction", policy))?.allowed);
    expect(allowed).toEqual([true, true, true, true, true, true, true, false]);
  });

  it("handles the sub-millisecond intervals of very high limits", async () => {
    expect(await limiter.check("high", { perMinute: 1_000_000, burst: 2 })).toMatchObject({
      allowed: true,
      remaining: 1,
    });
    expect(await limiter.check("higher", { perMinute: 1_000_000_000, burst: 2 })).toMatchObject({ allowed: true });
    expect(events).toEqual([]);
  });

  it("decides each of the checks sent together in one round trip", async () => {
    const decisions = await Promise.all(
      Array.from({ length: 8 }, () => limiter.check("together", { perMinute: 1, burst: 5 })),
    );
    expect(decisions.filter((d) => d?.allowed)).toHaveLength(5);
    const remaining = decisions.filter((d) => d?.allowed).map((d) => d?.remaining);
    expect(remaining.sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it("decides more checks than one call takes, and checks of several keys in one call", async () => {
    // 300 checks in one turn: two calls (256 and 44); 40 checks of another key interleaved with them.
    const many = Array.from({ length: 300 }, () => limiter.check("many", { perMinute: 1, burst: 280 }));
    const few = Array.from({ length: 40 }, () => limiter.check("few", { perMinute: 1, burst: 30 }));
    const decisions = await Promise.all(many);
    expect(decisions.filter((d) => d?.allowed)).toHaveLength(280);
    expect(decisions.slice(0, 280).map((d) => d?.remaining)).toEqual(Array.from({ length: 280 }, (_, i) => 279 - i));
    expect(decisions.slice(280).every((d) => d?.allowed === false && d.retryAfterMs > 55_000)).toBe(true);
    expect((await Promise.all(few)).map((d) => d?.allowed)).toEqual(Array.from({ length: 40 }, (_, i) => i < 30));
    expect(events).toEqual([]);
  });

  it("writes its keys under the prefix", async () => {
    const raw = new Redis(redisUrl);
    try {
      await limiter.check("prefixed", { perMinute: 1, burst: 2 });
      expect(await raw.exists(`${prefix}rl:prefixed`)).toBe(1);
      expect(await raw.exists("rl:prefixed")).toBe(0);
    } finally {
      raw.disconnect();
    }
  });

  it("keeps subjects apart", async () => {
    const policy = { perMinute: 1, burst: 1 };
    expect((await limiter.check("a", policy))?.allowed).toBe(true);
    expect((await limiter.check("a", policy))?.allowed).toBe(false);
    expect((await limiter.check("b", policy))?.allowed).toBe(true);
  });
});

describe("without Redis", () => {
  it("answers no decision at once and reports the outage once", async () => {
    const reported: string[] = [];
    const port = await freePort();
    const absent = new RedisRateLimiter({
      url: `redis://127.0.0.1:${port}`,
      keyPrefix: "absent:",
      commandTimeoutMs: 200,
      onUnavailable: () => reported.push("unavailable"),
      onRecovered: () => reported.push("recovered"),
    });
    try {
      expect(await absent.waitUntilReady(200)).toBe(false);
      for (let i = 0; i < 3; i++) expect(await absent.check("k", { perMinute: 1, burst: 1 })).toBeUndefined();
      expect(reported).toEqual(["unavailable"]);
    } finally {
      await absent.close();
    }
  });
});
