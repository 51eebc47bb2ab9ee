// Sign-in throttling keeps a row per email and per address tried, on the store under test: the emails an address tries
// once it is refused add none, and the rows of windows that have ended are deleted, so that a client trying a new
// email on every attempt does not grow the table for ever.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../../test/harness.ts";
import { FakeClock } from "../../../test/webhooks/fake-clock.ts";
import { LoginThrottle } from "./login-throttle.ts";

const limits = { perEmail: 5, perAddress: 3, windowMs: 15 * 60_000 };
const start = Date.parse("2026-11-25T10:00:00.000Z");

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ env: { GATEWAY_NO_WEBHOOK_WORKER: "1" } });
});
afterAll(async () => t?.close());
beforeEach(async () => {
  await t.gateway.core.store.db.deleteFrom("console_login_failures").execute();
});

const rows = async () =>
  (await t.gateway.core.store.db.selectFrom("console_login_failures").select("key").execute()).map((row) => row.key);

/** The code of what the attempt threw, or "counted". */
const outcome = (attempt: Promise<void>) =>
  attempt.then(
    () => "counted",
    (error: { code?: string }) => error.code,
  );

describe("sign-in throttling", () => {
  it("keeps no row for the emails an address tries once it is refused", async () => {
    const throttle = new LoginThrottle(t.gateway.core.store.db, new FakeClock(start), limits);
    const outcomes = [];
    for (let i = 0; i < 10; i++) outcomes.push(await outcome(throttle.attempt(`user${i}@example.com`, "192.0.2.1")));
    expect(outcomes).toEqual([...Array(3).fill("counted"), ...Array(7).fill("rate_limited")]);
    const kept = await rows();
    expect(kept.filter((key) => key.startsWith("email:"))).toHaveLength(3);
    expect(kept.filter((key) => key.startsWith("ip:"))).toEqual(["ip:192.0.2.1"]);
  });

  it("deletes the rows of windows that have ended", async () => {
    const clock = new FakeClock(start);
    const throttle = new LoginThrottle(t.gateway.core.store.db, clock, limits);
    for (let i = 0; i < 5; i++) await throttle.attempt(`user${i}@example.com`, `192.0.2.${i}`);
    expect(await rows()).toHaveLength(10);
    clock.advance(limits.windowMs);
    await throttle.attempt("late@example.com", "198.51.100.7");
    expect((await rows()).sort()).toEqual([expect.stringMatching(/^email:[0-9a-f]{64}$/), "ip:198.51.100.7"]);
  });

  it("still refuses an email past its limit from many addresses within the window", async () => {
    const clock = new FakeClock(start);
    const throttle = new LoginThrottle(t.gateway.core.store.db, clock, limits);
    for (let i = 0; i < 5; i++) await throttle.attempt("ada@example.com", `192.0.2.${i}`);
    clock.advance(limits.windowMs - 1);
    expect(await outcome(throttle.attempt("ada@example.com", "198.51.100.7"))).toBe("rate_limited");
  });
});
