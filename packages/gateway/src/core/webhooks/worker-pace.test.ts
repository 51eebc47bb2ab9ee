// The delivery worker's pace after a wake: it polls briefly (the waking transaction may not have committed), 10 ms after
// the wake and then slower, for a window counted on the monotonic clock, so that the machine's clock set back (an NTP
// step) does not stretch it.
import type { KyselyPlugin } from "kysely";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { startTestGateway, type TestGateway } from "../../../test/harness.ts";
import { storeOnlyWorker } from "../../../test/webhooks/setup.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ env: { GATEWAY_NO_WEBHOOK_WORKER: "1" } });
});
afterAll(async () => t?.close());

/** A worker on the test gateway's store whose statements are counted; nothing is due. */
function countingWorker() {
  const counted = { statements: 0 };
  const counter: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      counted.statements++;
      return args.result;
    },
  };
  const worker = storeOnlyWorker(t, { db: t.gateway.core.store.db.withPlugin(counter) });
  return { worker, counted };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it("polls at its interval once the wake's window has passed, though the machine's clock was set back", async () => {
  const { worker, counted } = countingWorker();
  worker.start();
  try {
    await sleep(100);
    worker.wake();
    const real = Date.now;
    const spy = vi.spyOn(Date, "now").mockImplementation(() => real() - 10 * 60_000);
    try {
      await sleep(1_000);
      const before = counted.statements;
      await sleep(500);
      // Past the window (250 ms), it sleeps its poll interval: no further claim.
      expect(counted.statements).toBe(before);
    } finally {
      spy.mockRestore();
    }
  } finally {
    await worker.stop();
  }
});

it("claims a handful of times in a wake's window, each poll slower than the one before, not every 10 ms", async () => {
  const { worker, counted } = countingWorker();
  worker.start();
  try {
    // The start's claim and purges are done (a loaded machine given time), and the worker sleeps its minute.
    await sleep(1_500);
    const before = counted.statements;
    worker.wake();
    await sleep(600);
    // The wake's own claim, then polls 10, 20, 40, 80 and 80 ms apart within the 250 ms window: 6 claims, each one
    // statement (polling every 10 ms made 25). A slow machine may fit fewer in the window (the wake's own claim and one
    // poll at least), never more.
    const claims = counted.statements - before;
    expect(claims).toBeGreaterThanOrEqual(2);
    expect(claims).toBeLessThanOrEqual(6);
  } finally {
    await worker.stop();
  }
});
