// Outbound delivery over real HTTP: the exact request a receiver gets, with its signature recomputed here and
// verified with the SDK, and the legacy v1 digest only before 2026-10-01.
import { afterEach, describe, expect, it } from "vitest";
import { verifyWebhook } from "../../../sdk/src/index.ts";
import { FakeClock } from "./fake-clock.ts";
import { attemptsRecorded, closeAll, hmac, nextAttempt, sendTestEvent, setupWebhooks } from "./setup.ts";

afterEach(closeAll);

describe("webhook delivery", () => {
  it("POSTs the envelope with exactly the delivery headers and a signature that verifies", async () => {
    const { clock, secret, receiver, gateway } = await setupWebhooks();
    const event = await sendTestEvent(gateway);
    const [request] = await receiver.waitFor(1);
    if (!request) throw new Error("no request");
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/hooks/gateway");
    const t = Math.floor(clock.now() / 1000);
    expect(request.headers).toMatchObject({
      "content-type": "application/json",
      "gateway-event-id": event.id,
      "gateway-delivery-attempt": "1",
      "user-agent": "ProviderGateway-Webhooks/1.0",
      "gateway-signature": `t=${t},v2=${hmac(secret, `${t}.${request.body}`)}`,
    });
    const transport = ["host", "connection", "content-length"];
    expect(request.rawHeaderNames.filter((name) => !transport.includes(name.toLowerCase()))).toEqual([
      "Content-Type",
      "Gateway-Event-Id",
      "Gateway-Signature",
      "Gateway-Delivery-Attempt",
      "User-Agent",
    ]);
    expect(JSON.parse(request.body)).toEqual({
      id: event.id,
      type: "test.event",
      created_at: new Date(clock.now()).toISOString(),
      data: {
        object: { message: "A test event from the Provider Gateway", endpoint_id: expect.stringMatching(/^we_/) },
      },
    });
    const verified = await verifyWebhook({
      rawBody: request.body,
      header: request.headers["gateway-signature"],
      secret,
      now: clock.now(),
    });
    expect(verified.id).toBe(event.id);
    const delivery = await attemptsRecorded(gateway, event.id, 1);
    expect(delivery.status).toBe("succeeded");
    expect(delivery.attempts).toEqual([
      expect.objectContaining({ attempt: 1, status_code: 200, error: null, response_body: "ok" }),
    ]);
  });

  it("adds the legacy v1 digest only while the clock is before 2026-10-01T00:00:00Z", async () => {
    const clock = new FakeClock(Date.parse("2026-09-30T23:59:57.000Z"));
    const setup = await setupWebhooks({ clock, answer: () => ({ status: 500 }) });
    const event = await sendTestEvent(setup.gateway);
    const [first] = await setup.receiver.waitFor(1);
    await attemptsRecorded(setup.gateway, event.id, 1);
    const t1 = Math.floor(Date.parse("2026-09-30T23:59:57.000Z") / 1000);
    expect(first?.headers["gateway-signature"]).toBe(
      `t=${t1},v2=${hmac(setup.secret, `${t1}.${first?.body}`)},v1=${hmac(setup.secret, first?.body ?? "")}`,
    );
    await nextAttempt(setup, event.id);
    const second = setup.receiver.received[1];
    expect(clock.now()).toBeGreaterThanOrEqual(Date.parse("2026-10-01T00:00:00.000Z"));
    const t2 = Math.floor(clock.now() / 1000);
    expect(second?.headers["gateway-signature"]).toBe(`t=${t2},v2=${hmac(setup.secret, `${t2}.${second?.body}`)}`);
    expect(second?.body).toBe(first?.body);
  });

  it("delivers only the types the endpoint subscribes to", async () => {
    const { gateway, receiver } = await setupWebhooks({ eventTypes: ["order.updated"] });
    const db = gateway.gateway.core.store.db;
    const events = gateway.gateway.core.events;
    const skipped = await events.record(db, { accountId: "default", type: "ride.updated", object: { id: "ride_1" } });
    const wanted = await events.record(db, { accountId: "default", type: "order.updated", object: { id: "ord_1" } });
    const [request] = await receiver.waitFor(1);
    expect(request?.headers["gateway-event-id"]).toBe(wanted.id);
    const response = await gateway.call("platform", "list_event_deliveries", { event_id: skipped.id });
    expect(((await response.json()) as { data: { deliveries: unknown[] } }).data.deliveries).toEqual([]);
  });

  it("writes nothing when the caller's transaction rolls back", async () => {
    const { gateway, receiver } = await setupWebhooks();
    const { db } = gateway.gateway.core.store;
    let eventId = "";
    await expect(
      db.transaction().execute(async (trx) => {
        eventId = (
          await gateway.gateway.core.events.record(trx, {
            accountId: "default",
            type: "order.updated",
            object: { id: "ord_1" },
          })
        ).id;
        throw new Error("the state change failed");
      }),
    ).rejects.toThrow("the state change failed");
    const response = await gateway.call("platform", "get_event", { event_id: eventId });
    expect(response.status).toBe(404);
    const rows = await db.selectFrom("webhook_deliveries").select("id").where("event_id", "=", eventId).execute();
    expect(rows).toEqual([]);
    expect(receiver.received).toEqual([]);
  });
});
