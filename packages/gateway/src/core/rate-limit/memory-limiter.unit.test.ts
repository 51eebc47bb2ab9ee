// The in-process limiter when its clock is set back (an NTP step, the database server's clock on PostgreSQL): each
// key keeps the allowance it had, rather than being refused for as long as the step.
import { afterEach, expect, it, vi } from "vitest";
import { MemoryRateLimiter } from "./memory-limiter.ts";

let time = 1_800_000_000_000;
const limiter = new MemoryRateLimiter({ now: () => time });
afterEach(() => limiter.close());

it("keeps each key's allowance across a clock set back, and refuses as before once it is spent", () => {
  const policy = { perMinute: 60, burst: 3 };
  expect(limiter.check("key-a", policy)).toMatchObject({ allowed: true, remaining: 2 });
  expect(limiter.check("key-a", policy)).toMatchObject({ allowed: true, remaining: 1 });

  time -= 10 * 60_000;
  expect(limiter.check("key-a", policy)).toMatchObject({ allowed: true, remaining: 0 });
  expect(limiter.check("key-a", policy)).toMatchObject({ allowed: false, retryAfterMs: 1_000 });
  expect(limiter.check("key-b", policy)).toMatchObject({ allowed: true, remaining: 2 });

  time += 1_000;
  expect(limiter.check("key-a", policy)).toMatchObject({ allowed: true, remaining: 0 });
});

it("sweeps only keys whose TAT has passed: a key still owing keeps owing across a sweep", () => {
  vi.useFakeTimers();
  try {
    let now = 1_800_000_000_000;
    const swept = new MemoryRateLimiter({ now: () => now });
    const policy = { perMinute: 1, burst: 2 };
    expect(swept.check("key-a", policy)).toMatchObject({ allowed: true, remaining: 1 });
    expect(swept.check("key-a", policy)).toMatchObject({ allowed: true, remaining: 0 });
    now += 60_000;
    vi.advanceTimersByTime(60_000);
    expect(swept.check("key-a", policy)).toMatchObject({ allowed: true, remaining: 0 });
    expect(swept.check("key-a", policy)).toMatchObject({ allowed: false, retryAfterMs: 60_000 });
    void swept.close();
  } finally {
    vi.useRealTimers();
  }
});
