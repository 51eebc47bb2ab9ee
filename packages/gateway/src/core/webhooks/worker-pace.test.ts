// The delivery worker's pace after a wake: it polls briefly every 10 ms (the waking transaction may not have committed),
// for a window counted on the monotonic clock, so that the machine's clock set back (an NTP step) does not stretch it.
import type { KyselyPlugin } from "kysely";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { startTestGateway, type TestGateway } from "../../../test/harness.ts";
import type { WebhookSender } from "./sender.ts";
import { WebhookWorker } from "./worker.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ env: { GATEWAY_NO_WEBHOOK_WORKER: "1" } });
});
afterAll(async () => t?.close());

it("polls at its interval once the wake's window has passed, though the machine's clock was set back", async () => {
  let statements = 0;
  const counter: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      statements++;
      return args.result;
    },
  };
  const { core } = t.gateway;
  const worker = new WebhookWorker(
    {
      db: core.store.db.withPlugin(counter),
      kind: core.store.kind,
      clock: core.clock,
      events: core.events,
      endpoints: core.webhooks.endpoints,
      sender: {} as WebhookSender,
      log: { error: () => {}, info: () => {} },
    },
    { pollIntervalMs: 60_000, leaseMs: 60_000, concurrency: 2, endpointConcurrency: 1, userAgent: "test" },
  );
  worker.start();
  try {
    await new Promise((resolve) => setTimeout(resolve, 100));
    worker.wake();
    const real = Date.now;
    const spy = vi.spyOn(Date, "now").mockImplementation(() => real() - 10 * 60_000);
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const counted = statements;
      await new Promise((resolve) => setTimeout(resolve, 500));
      // Past the window (250 ms), it sleeps its poll interval: no further claim.
      expect(statements).toBe(counted);
    } finally {
      spy.mockRestore();
    }
  } finally {
    await worker.stop();
  }
});
