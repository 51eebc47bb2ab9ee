// The GCRA arithmetic: bursts, sustained rate, refusals that consume nothing, and exact boundaries.
import { describe, expect, it } from "vitest";
import { gcra, type RateLimitPolicy } from "./gcra.ts";

function run(policy: RateLimitPolicy, times: number[]) {
  let tat: number | undefined;
  return times.map((now) => {
    const decision = gcra(tat, now, policy);
    tat = decision.allowed ? decision.tat : tat;
    return decision;
  });
}

describe("gcra", () => {
  it("allows exactly the burst at once from a fresh key", () => {
    const decisions = run({ perMinute: 600, burst: 60 }, Array(61).fill(0));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(60);
    expect(decisions[0]).toMatchObject({ allowed: true, remaining: 59, resetMs: 100 });
    expect(decisions[59]).toMatchObject({ allowed: true, remaining: 0, resetMs: 6000 });
    expect(decisions[60]).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 100 });
  });

  it("sustains the rate after the burst: one request per emission interval", () => {
    const policy = { perMinute: 600, burst: 60 };
    const times = [...Array(60).fill(0), 99, 100, 150, 199, 200];
    expect(
      run(policy, times)
        .slice(60)
        .map((d) => d.allowed),
    ).toEqual([false, true, false, false, true]);
  });

  it("does not count refused requests", () => {
    const policy = { perMinute: 60, burst: 1 };
    const decisions = run(policy, [0, 10, 20, 500, 1000]);
    expect(decisions.map((d) => d.allowed)).toEqual([true, false, false, false, true]);
    expect(decisions[1]?.retryAfterMs).toBe(990);
  });

  it("handles emission intervals that are not whole milliseconds", () => {
    const policy = { perMinute: 7, burst: 7 };
    const decisions = run(policy, Array(8).fill(0));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(7);
    expect(decisions.map((d) => d.remaining).slice(0, 7)).toEqual([6, 5, 4, 3, 2, 1, 0]);
    expect(gcra(decisions[6]?.tat, 60_000 / 7, policy).allowed).toBe(true);
  });

  it("restores the full burst after burst × interval of silence", () => {
    const policy = { perMinute: 60, burst: 5 };
    const first = run(policy, Array(5).fill(0));
    const tat = first[4]?.tat;
    expect(gcra(tat, 5000, policy)).toMatchObject({ allowed: true, remaining: 4 });
  });

  it("gives a key silent for longer than that the burst, no more: an old TAT is not carried forward", () => {
    const policy = { perMinute: 60, burst: 3 };
    const tat = run(policy, [0, 0, 0])[2]?.tat;
    expect(tat).toBe(3000);
    let next = tat;
    const decisions = Array.from({ length: 4 }, () => {
      const decision = gcra(next, 3_600_000, policy);
      if (decision.allowed) next = decision.tat;
      return decision;
    });
    expect(decisions.map((d) => [d.allowed, d.remaining, d.resetMs])).toEqual([
      [true, 2, 1000],
      [true, 1, 2000],
      [true, 0, 3000],
      [false, 0, 3000],
    ]);
    expect(next).toBe(3_603_000);
  });
});
