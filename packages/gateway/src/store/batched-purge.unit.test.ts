// A periodic purge and its node stopping: `stop` ends a run under way after the batch it is in and waits for it, so
// that a backlog's purge does not go on deleting from a store that is being closed; one run at a time; each purge of a
// run has its turn, whatever the one before it did.
import { expect, it, vi } from "vitest";
import { PeriodicPurge, purgeInBatches, type RowsByTime } from "./batched-purge.ts";

/** 5,000 rows at times 1…5000, each batch's delete held until `release` is called. */
function backlog() {
  let times = Array.from({ length: 5_000 }, (_, i) => i + 1);
  const batches: number[] = [];
  let release: () => void = () => {};
  let started: () => void = () => {};
  let batchStarted = new Promise<void>((resolve) => {
    started = resolve;
  });
  const rows: RowsByTime = {
    timeAt: async (offset, cutoff) => times.filter((time) => time <= cutoff)[offset],
    deleteUpTo: async (upTo) => {
      started();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      const before = times.length;
      times = times.filter((time) => time > upTo);
      batches.push(before - times.length);
      return before - times.length;
    },
  };
  return {
    rows,
    batches,
    left: () => times.length,
    release: () => release(),
    nextBatch: async () => {
      await batchStarted;
      batchStarted = new Promise<void>((resolve) => {
        started = resolve;
      });
    },
  };
}

it("ends a run under way after its current batch when stopped, and waits for it", async () => {
  const rows = backlog();
  const runs: Promise<number>[] = [];
  const purge = new PeriodicPurge(
    {
      backlog: (stopping) => {
        const run = purgeInBatches(rows.rows, 10_000, stopping);
        runs.push(run);
        return run;
      },
    },
    60_000,
    (_what, error) => {
      throw error;
    },
    { immediately: true },
  );
  await rows.nextBatch();
  rows.release();
  await rows.nextBatch();

  let stopped = false;
  const stopping = purge.stop().then(() => {
    stopped = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  expect(stopped).toBe(false);
  rows.release();
  await stopping;

  expect(runs).toHaveLength(1);
  expect(await runs[0]).toBe(2_000);
  expect(rows.batches).toEqual([1_000, 1_000]);
  expect(rows.left()).toBe(3_000);
});

it("runs to the end when nobody stops it", async () => {
  const rows = backlog();
  const run = purgeInBatches(rows.rows, 4_500);
  for (let batch = 0; batch < 5; batch++) {
    await rows.nextBatch();
    rows.release();
  }
  expect(await run).toBe(4_500);
  expect(rows.batches).toEqual([1_000, 1_000, 1_000, 1_000, 500]);
});

it("runs each purge in turn though one before it failed, and reports each failure under its name", async () => {
  const ran: string[] = [];
  const failures: [string, string][] = [];
  const purge = new PeriodicPurge(
    {
      first: async () => {
        ran.push("first");
        throw new Error("the store refused");
      },
      second: async () => {
        ran.push("second");
      },
    },
    60_000,
    (what, error) => failures.push([what, (error as Error).message]),
    { immediately: true },
  );
  await vi.waitFor(() => expect(ran).toEqual(["first", "second"]));
  await purge.stop();
  expect(failures).toEqual([["first", "the store refused"]]);
});
