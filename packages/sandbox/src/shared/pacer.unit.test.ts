// The pacer of the paced sandboxes (one pending step per record, manual mode, cleared at close) and the ordered push
// (a record's hooks leave one after the other even when an earlier one is slow).
import { afterEach, describe, expect, it } from "vitest";
import { notFound } from "./errors.ts";
import { orderedPush, Pacer, tickFromEnv } from "./pacer.ts";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Polls until `done` holds (a loaded machine fires timers late), failing after a deadline. */
async function until(done: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error("condition not met before the deadline");
    await pause(5);
  }
}
const pacers: Pacer[] = [];
afterEach(() => {
  for (const pacer of pacers.splice(0)) pacer.close();
});
const pacer = (tickMs: number | null) => {
  const created = new Pacer(tickMs);
  pacers.push(created);
  return created;
};

describe("Pacer", () => {
  it("runs a record's step one tick later, and only the latest one scheduled", async () => {
    const ran: string[] = [];
    const p = pacer(20);
    p.next("a", () => ran.push("a1"));
    p.next("a", () => ran.push("a2"));
    p.next("b", () => ran.push("b1"));
    await until(() => ran.length >= 2);
    await pause(30);
    expect(ran.sort()).toEqual(["a2", "b1"]);
  });

  it("in manual mode (null) schedules nothing; cancel and close drop pending steps", async () => {
    const ran: string[] = [];
    pacer(null).next("a", () => ran.push("manual"));
    const p = pacer(20);
    p.next("b", () => ran.push("cancelled"));
    p.cancel("b");
    p.next("c", () => ran.push("closed"));
    p.close();
    await pause(60);
    expect(ran).toEqual([]);
  });

  it("drops a step whose record moved on (a SandboxError), and reads SANDBOX_TICK_MS", async () => {
    const p = pacer(5);
    p.next("a", () => {
      throw notFound("gone");
    });
    const ran: string[] = [];
    p.next("b", () => ran.push("b"));
    await until(() => ran.length === 1);
    const before = process.env.SANDBOX_TICK_MS;
    try {
      process.env.SANDBOX_TICK_MS = "25";
      expect(tickFromEnv()).toBe(25);
      process.env.SANDBOX_TICK_MS = "soon";
      expect(tickFromEnv()).toBe(2000);
    } finally {
      if (before === undefined) delete process.env.SANDBOX_TICK_MS;
      else process.env.SANDBOX_TICK_MS = before;
    }
  });
});

describe("orderedPush", () => {
  it("sends a record's hooks in order even when the first is slow; other records do not wait", async () => {
    const sent: string[] = [];
    const push = orderedPush(async (type) => {
      if (type === "slow") await pause(40);
      sent.push(type);
      return true;
    });
    push("order-1", "slow", {});
    push("order-1", "second", {});
    push("order-2", "other", {});
    await until(() => sent.length === 3);
    expect(sent).toEqual(["other", "slow", "second"]);
  });
});
