// The database server's clock set back (an NTP step, a failover to a server whose clock differs): the nodes already
// running follow it, as a node started afterwards reads it, rather than stand still until it catches up.
import type { KyselyPlugin } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DatabaseClock } from "../src/core/database-clock.ts";
import { startTestGateway, type TestGateway } from "./harness.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t?.close();
});

/** The database's clock as read through it: `shiftMs` away from the server's. */
function shifted() {
  const shift = { ms: 0 };
  const plugin: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: async ({ result }) => ({
      ...result,
      rows: result.rows.map((row) => ({ ...row, ms: Number((row as { ms: unknown }).ms) + shift.ms })),
    }),
  };
  return { db: t.gateway.core.store.db.withPlugin(plugin), shift };
}

it("follows the database's clock set back ten minutes, where a node started now agrees with it", async () => {
  const { db, shift } = shifted();
  const running = await DatabaseClock.start(db, () => {});
  const before = running.now();
  shift.ms = -10 * 60_000;
  await running.resync();
  const started = await DatabaseClock.start(db, () => {});
  try {
    expect(Math.abs(running.now() - started.now())).toBeLessThan(1_000);
    expect(running.now()).toBeLessThan(before - 9 * 60_000);
  } finally {
    running.stop();
    started.stop();
  }
});

it("never goes back for a reading a few milliseconds behind: it holds until the reading catches up", async () => {
  const { db, shift } = shifted();
  const clock = await DatabaseClock.start(db, () => {});
  try {
    const before = clock.now();
    shift.ms = -300;
    await clock.resync();
    expect(clock.now()).toBeGreaterThanOrEqual(before);
    expect(clock.now()).toBeLessThan(before + 300);
  } finally {
    clock.stop();
  }
});
