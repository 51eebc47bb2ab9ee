// The attempt log writes the outcomes that finish together in one transaction; one of them that cannot be written
// (its attempt is in the log already) does not cost the others theirs: each is then written on its own.
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
    env: { GATEWAY_WEBHOOK_LEASE_MS: "1500" },
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
