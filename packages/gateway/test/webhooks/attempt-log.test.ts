// The attempt log writes the outcomes that finish together in one transaction; one of them that cannot be written
// (its attempt is in the log already) does not cost the others theirs: each is then written on its own. An outcome the
// store refuses for a while (an outage) is written again while the lease lasts, rather than the event sent again.
import { sql } from "kysely";
import { afterEach, expect, it } from "vitest";
import { AttemptLog } from "../../src/core/webhooks/attempt-log.ts";
import { claimDueDeliveries } from "../../src/core/webhooks/claim.ts";
import { attemptsRecorded, closeAll, deliveriesOf, sendTestEvent, setupWebhooks } from "./setup.ts";

afterEach(closeAll);

it("keeps the outcomes of a batch when one of them cannot be written", async () => {
  const s = await setupWebhooks({ env: { GATEWAY_NO_WEBHOOK_WORKER: "1" } });
  const events = [await sendTestEvent(s.gateway), await sendTestEvent(s.gateway)];
  const { db, kind } = s.gateway.gateway.core.store;
  const claimed = await claimDueDeliveries(db, kind)({ now: s.clock.now(), leaseMs: 60_000, limit: 10 });
  expect(claimed.map((d) => d.event_id).sort()).toEqual(events.map((e) => e.id).sort());
  const [taken, kept] = claimed as [(typeof claimed)[0], (typeof claimed)[0]];
  // The first one's attempt is in the log already (another process recorded it).
  await db
    .insertInto("webhook_attempts")
    .values({
      delivery_id: taken.id,
      event_id: taken.event_id,
      attempt: taken.attempt_count,
      url: s.receiver.url,
      attempted_at: s.clock.now(),
      status_code: 200,
      latency_ms: 1,
      error: null,
      response_body: "",
    })
    .execute();

  const log = new AttemptLog(db, s.gateway.gateway.core.clock);
  const ok = { ok: true, statusCode: 200, latencyMs: 3, error: null, responseBody: "ok" };
  const recorded = await Promise.allSettled(
    [taken, kept].map((delivery) =>
      log.record({ delivery, url: s.receiver.url, attemptedAt: s.clock.now(), outcome: ok }),
    ),
  );
  expect(recorded.map((r) => r.status)).toEqual(["rejected", "fulfilled"]);
  const [delivery] = await deliveriesOf(s.gateway, kept.event_id);
  expect(delivery).toMatchObject({ status: "succeeded", attempt_count: 1 });
  expect(delivery?.attempts).toEqual([expect.objectContaining({ attempt: 1, status_code: 200, response_body: "ok" })]);
});

it("records an answer holding NUL bytes (refused by PostgreSQL's text), so the delivery ends after one attempt", async () => {
  const s = await setupWebhooks({
    answer: () => ({ status: 200, body: "ok\u0000done" }),
    env: { GATEWAY_WEBHOOK_TIMEOUT_MS: "1000", GATEWAY_WEBHOOK_LEASE_MS: "1500" },
  });
  const event = await sendTestEvent(s.gateway);
  const delivery = await attemptsRecorded(s.gateway, event.id, 1);
  expect(delivery).toMatchObject({ status: "succeeded", attempt_count: 1 });
  expect(delivery.attempts).toEqual([
    expect.objectContaining({ attempt: 1, status_code: 200, error: null, response_body: "ok\uFFFDdone" }),
  ]);
  // Past the lease: a delivery whose outcome had not been written would be claimed and sent again.
  s.clock.advance(5_000);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(s.receiver.received.filter((r) => r.headers["gateway-event-id"] === event.id)).toHaveLength(1);
});

it("writes an outcome again while the store refuses it, so the receiver that answered gets the event once", async () => {
  const s = await setupWebhooks({ env: { GATEWAY_WEBHOOK_LEASE_MS: "10000" } });
  const { db } = s.gateway.gateway.core.store;
  // The attempt log cannot be written for a moment, as while the store is down.
  await sql`alter table webhook_attempts rename to webhook_attempts_away`.execute(db);
  let event: { id: string };
  try {
    event = await sendTestEvent(s.gateway);
    await s.receiver.waitFor(1);
    // Several writes fail meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 400));
  } finally {
    await sql`alter table webhook_attempts_away rename to webhook_attempts`.execute(db);
  }
  const delivery = await attemptsRecorded(s.gateway, event.id, 1);
  expect(delivery).toMatchObject({ status: "succeeded", attempt_count: 1 });
  // Past the lease: an outcome given up on would have the delivery claimed and sent again.
  s.clock.advance(20_000);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(s.receiver.received.filter((r) => r.headers["gateway-event-id"] === event.id)).toHaveLength(1);
});

it("stops writing an outcome the store refuses once the gateway closes, rather than holding the shutdown for its lease", async () => {
  // A lease far longer than the test: a worker that went on writing the outcome until it ran out would never close.
  const s = await setupWebhooks({ env: { GATEWAY_WEBHOOK_LEASE_MS: "600000" } });
  await sql`alter table webhook_attempts rename to webhook_attempts_away`.execute(s.gateway.gateway.core.store.db);
  await sendTestEvent(s.gateway);
  await s.receiver.waitFor(1);
  // As on SIGTERM: the gateway closes while the outcome cannot be written, and the delivery keeps its lease.
  await closeAll();
  expect(s.receiver.received).toHaveLength(1);
});
