// The delivery worker's purges: events and inbound hooks past retention are each purged on their own, so that the
// events' purge failing (the store refusing it) neither keeps the inbound hooks from theirs nor hides which one failed.
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { startTestGateway, type TestGateway } from "../../../test/harness.ts";
import { deleteRecorder, refuseDeletesFrom } from "../../../test/purges.ts";
import { storeOnlyWorker } from "../../../test/webhooks/setup.ts";
import { Events, eventRetentionMs } from "../events/events.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ env: { GATEWAY_NO_WEBHOOK_WORKER: "1" } });
});
afterAll(async () => t?.close());

it("purges the inbound hooks past retention though the events' purge fails, and logs that one's failure", async () => {
  const { core } = t.gateway;
  const db = core.store.db;
  const old = core.clock.now() - eventRetentionMs - 1_000;
  await db
    .insertInto("events")
    .values({ id: "evt_purgefails", account_id: "default", type: "order.updated", body: "{}", created_at: old })
    .execute();
  await db
    .insertInto("inbound_hooks")
    .values({ provider_id: "delivery", provider_event_id: "hook-old", type: "order.updated", received_at: old })
    .execute();
  const recorder = deleteRecorder();
  const store = db.withPlugin(refuseDeletesFrom("events")).withPlugin(recorder.plugin);
  const errors: string[] = [];
  const worker = storeOnlyWorker(t, {
    events: new Events(store, core.clock),
    log: { error: (_object, message) => errors.push(message), info: () => {} },
  });
  worker.start();
  try {
    await vi.waitFor(() => expect(recorder.deletes).toContainEqual(["inbound_hooks", 1]), { timeout: 10_000 });
  } finally {
    await worker.stop();
  }
  expect(errors).toEqual(["event purge failed"]);
  expect(
    await db
      .selectFrom("inbound_hooks")
      .select("provider_event_id")
      .where("provider_event_id", "=", "hook-old")
      .execute(),
  ).toEqual([]);
  expect(await db.selectFrom("events").select("id").where("id", "=", "evt_purgefails").execute()).toHaveLength(1);
});
