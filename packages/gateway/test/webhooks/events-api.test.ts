// The event API: list (newest first, by type, cursor pages, 30-day retention), get, deliveries with their attempt
// log, redeliver; another account's ids behave exactly like unknown ones; endpoint management answers.
import { afterEach, describe, expect, it } from "vitest";
import { Events } from "../../src/core/events/events.ts";
import { deleteRecorder, turnsDuring } from "../purges.ts";
import { eventually } from "./fake-clock.ts";
import { closeAll, deliveriesOf, sendTestEvent, setupWebhooks } from "./setup.ts";

afterEach(closeAll);

type Json = Record<string, unknown> & { data: Record<string, unknown>; pagination: unknown };
const day = 24 * 3600 * 1000;

describe("event API", () => {
  it("lists newest first with cursor pages and a type filter, and reads one event exactly as delivered", async () => {
    const setup = await setupWebhooks({ eventTypes: ["order.updated"] });
    const { core } = setup.gateway.gateway;
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) {
      const type = index % 2 === 0 ? "order.updated" : "ride.updated";
      ids.push((await core.events.record(core.store.db, { accountId: "default", type, object: { n: index } })).id);
      setup.clock.advance(1000);
    }
    const page1 = (await (await setup.gateway.call("platform", "list_events", { limit: 2 })).json()) as Json;
    const events1 = page1.data.events as { id: string }[];
    expect(events1.map((e) => e.id)).toEqual([ids[4], ids[3]]);
    expect(page1.pagination).toEqual({ next_cursor: expect.any(String), has_more: true });
    const cursor = (page1.pagination as { next_cursor: string }).next_cursor;
    const page2 = (await (await setup.gateway.call("platform", "list_events", { limit: 2, cursor })).json()) as Json;
    expect((page2.data.events as { id: string }[]).map((e) => e.id)).toEqual([ids[2], ids[1]]);
    const cursor2 = (page2.pagination as { next_cursor: string }).next_cursor;
    const page3 = (await (
      await setup.gateway.call("platform", "list_events", { limit: 2, cursor: cursor2 })
    ).json()) as Json;
    expect((page3.data.events as { id: string }[]).map((e) => e.id)).toEqual([ids[0]]);
    expect(page3.pagination).toEqual({ next_cursor: null, has_more: false });

    const rides = (await (
      await setup.gateway.call("platform", "list_events", { type: "ride.updated" })
    ).json()) as Json;
    expect((rides.data.events as { id: string }[]).map((e) => e.id)).toEqual([ids[3], ids[1]]);

    const got = (await (await setup.gateway.call("platform", "get_event", { event_id: ids[2] })).json()) as Json;
    const [delivered] = await setup.receiver.waitFor(3);
    expect(JSON.stringify(got.data.event)).toBe(
      setup.receiver.received.find((r) => r.headers["gateway-event-id"] === ids[2])?.body,
    );
    expect(delivered).toBeDefined();

    const bad = await setup.gateway.call("platform", "list_events", { cursor: "nonsense" });
    expect(bad.status).toBe(400);
    // Cursors of the right shape but not issued by the list: an id with a NUL (PostgreSQL cannot compare it), an
    // extra element. Both are the same 400, never a 500.
    for (const forged of [
      [1795598294687, "\u0000"],
      [1795598294687, "evt_x", 1],
    ]) {
      const cursor = Buffer.from(JSON.stringify(forged)).toString("base64url");
      const refused = await setup.gateway.call("platform", "list_events", { cursor });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as Json).error).toMatchObject({
        code: "invalid_request",
        message: "The cursor is not one this list returned",
        details: [{ path: "/cursor", message: "is not valid" }],
      });
    }
    const badType = await setup.gateway.call("platform", "list_events", { type: "order.exploded" });
    expect(badType.status).toBe(400);
  });

  it("keeps events 30 days: older ones are neither listed nor readable, and are purged", async () => {
    const setup = await setupWebhooks();
    const event = await sendTestEvent(setup.gateway);
    await setup.receiver.waitFor(1);
    setup.clock.advance(30 * day + 1);
    const list = (await (await setup.gateway.call("platform", "list_events", {})).json()) as Json;
    expect(list.data.events).toEqual([]);
    expect((await setup.gateway.call("platform", "get_event", { event_id: event.id })).status).toBe(404);
    expect(await setup.gateway.gateway.core.events.purgeExpired()).toBe(1);
    const { db } = setup.gateway.gateway.core.store;
    expect(await db.selectFrom("webhook_attempts").select("delivery_id").execute()).toEqual([]);
    expect(await db.selectFrom("webhook_deliveries").select("id").execute()).toEqual([]);
  });

  it("purges a backlog past retention a thousand events at a time, the event loop turning between batches", async () => {
    const setup = await setupWebhooks();
    const { core } = setup.gateway.gateway;
    const { db } = core.store;
    const now = setup.clock.now();
    const event = (i: number, createdAt: number) => ({
      id: `evt_purge${String(i).padStart(5, "0")}`,
      account_id: "default",
      type: "order.updated",
      body: "{}",
      created_at: createdAt,
    });
    const events = [
      ...Array.from({ length: 2_500 }, (_, i) => event(i, now - 31 * day + i)),
      event(2_500, now - 30 * day),
    ];
    const hooks = [...Array.from({ length: 1_200 }, (_, i) => now - 31 * day + i), now - 30 * day].map((at, i) => ({
      provider_id: "delivery",
      provider_event_id: `hook-${i}`,
      type: "order.updated",
      received_at: at,
    }));
    for (let i = 0; i < events.length; i += 500) {
      const batch = events.slice(i, i + 500);
      await db.insertInto("events").values(batch).execute();
      const deliveries = batch.map((row) => ({
        id: `whd_${row.id}`,
        event_id: row.id,
        account_id: "default",
        endpoint_id: "we_purge",
        status: "succeeded" as const,
        attempt_count: 1,
        next_attempt_at: row.created_at,
        lease_until: null,
        created_at: row.created_at,
        deadline_at: row.created_at + day,
        completed_at: row.created_at,
        last_status_code: 200,
        last_error: null,
      }));
      await db.insertInto("webhook_deliveries").values(deliveries).execute();
      const attempts = deliveries.map((row) => ({
        delivery_id: row.id,
        event_id: row.event_id,
        attempt: 1,
        url: "https://example.com/hook",
        attempted_at: row.created_at,
        status_code: 200,
        latency_ms: 1,
        error: null,
        response_body: null,
      }));
      await db.insertInto("webhook_attempts").values(attempts).execute();
      const received = hooks.slice(i, i + 500);
      if (received.length > 0) await db.insertInto("inbound_hooks").values(received).execute();
    }

    const recorder = deleteRecorder();
    const purges = new Events(db.withPlugin(recorder.plugin), setup.clock);
    const { result: purged, turns } = await turnsDuring(async () => [
      await purges.purgeExpired(),
      await purges.purgeInboundHooks(),
    ]);

    expect(purged).toEqual([2_500, 1_200]);
    const batch = (n: number): [string, number][] => [
      ["webhook_attempts", n],
      ["webhook_deliveries", n],
      ["events", n],
    ];
    expect(recorder.deletes).toEqual([
      ...batch(1_000),
      ...batch(1_000),
      ...batch(500),
      ["inbound_hooks", 1_000],
      ["inbound_hooks", 200],
    ]);
    expect(turns).toBeGreaterThanOrEqual(3);
    const kept = "evt_purge02500";
    expect(await db.selectFrom("events").select("id").where("id", "like", "evt_purge%").execute()).toEqual([
      { id: kept },
    ]);
    expect(await db.selectFrom("webhook_deliveries").select("event_id").execute()).toEqual([{ event_id: kept }]);
    expect(await db.selectFrom("webhook_attempts").select("event_id").execute()).toEqual([{ event_id: kept }]);
    expect(await db.selectFrom("inbound_hooks").select("provider_event_id").execute()).toEqual([
      { provider_event_id: "hook-1200" },
    ]);
  });

  it("another account's event is exactly as unknown as a made-up id", async () => {
    const setup = await setupWebhooks();
    const { core } = setup.gateway.gateway;
    await core.accounts.ensure("other");
    const foreign = await core.events.record(core.store.db, {
      accountId: "other",
      type: "order.updated",
      object: { id: "ord_x" },
    });
    for (const operation of ["get_event", "list_event_deliveries", "redeliver_event"]) {
      const responses = await Promise.all(
        [foreign.id, "evt_doesnotexist0000000000"].map(async (id) => {
          const response = await setup.gateway.call("platform", operation, { event_id: id });
          const body = (await response.json()) as { error: { code: string; message: string } };
          return { status: response.status, code: body.error.code, message: body.error.message.replace(id, "ID") };
        }),
      );
      expect(responses[0]).toEqual({ status: 404, code: "not_found", message: "No event ID" });
      expect(responses[1]).toEqual(responses[0]);
    }
    const list = (await (await setup.gateway.call("platform", "list_events", {})).json()) as Json;
    expect(list.data.events).toEqual([]);
  });

  it("lists each delivery with its attempts, and redelivers as a new delivery", async () => {
    let status = 500;
    const setup = await setupWebhooks({ answer: () => ({ status, body: "x".repeat(3000) }) });
    const event = await sendTestEvent(setup.gateway);
    const first = await eventually(async () => {
      const found = (await deliveriesOf(setup.gateway, event.id))[0];
      return found?.attempts.length ? found : undefined;
    });
    expect(first.attempts[0]?.response_body).toBe("x".repeat(1024));
    expect(first.attempts[0]?.latency_ms).toBeGreaterThanOrEqual(0);
    status = 200;
    setup.clock.advance(1);
    const redelivered = await setup.gateway.call("platform", "redeliver_event", { event_id: event.id });
    const body = (await redelivered.json()) as Json;
    expect(body.data.delivery).toMatchObject({ event_id: event.id, status: "pending", attempts: [] });
    const both = await eventually(async () => {
      const list = await deliveriesOf(setup.gateway, event.id);
      return list[1]?.status === "succeeded" ? list : undefined;
    });
    expect(both.map((d) => d.status)).toEqual(["pending", "succeeded"]);
  });

  it("manages the endpoint: validation, 404 without one, delete fails pending deliveries", async () => {
    const setup = await setupWebhooks({ answer: () => ({ status: 500 }) });
    const badTypes = await setup.gateway.call("platform", "set_webhook_endpoint", {
      url: setup.receiver.url,
      event_types: ["order.updated", "nope.nope"],
    });
    expect(badTypes.status).toBe(400);
    const badBody = (await badTypes.json()) as { error: { details: { path: string; message: string }[] } };
    const badDetails = badBody.error.details;
    expect(badDetails).toHaveLength(1);
    expect(badDetails[0]?.path).toBe("/event_types/1");
    expect(badDetails[0]?.message).toMatch(/^must be one of "\*", "reservation\.confirmed", .*"test\.event"$/);
    const star = await setup.gateway.call("platform", "set_webhook_endpoint", {
      url: setup.receiver.url,
      event_types: ["*", "order.updated"],
    });
    expect(star.status).toBe(400);
    const event = await sendTestEvent(setup.gateway);
    await setup.receiver.waitFor(1);
    const deleted = await setup.gateway.call("platform", "delete_webhook_endpoint");
    expect(((await deleted.json()) as Json).data).toEqual({ id: expect.stringMatching(/^we_/), deleted: true });
    await eventually(async () =>
      (await deliveriesOf(setup.gateway, event.id))[0]?.status === "failed" ? true : undefined,
    );
    for (const operation of [
      "get_webhook_endpoint",
      "delete_webhook_endpoint",
      "rotate_webhook_secret",
      "send_test_event",
    ]) {
      const response = await setup.gateway.call("platform", operation);
      expect(response.status, operation).toBe(404);
    }
    const noEndpoint = await setup.gateway.call("platform", "redeliver_event", { event_id: event.id });
    expect(noEndpoint.status).toBe(409);
    expect(((await noEndpoint.json()) as Json).error).toMatchObject({
      code: "conflict",
      details: { reason: "no_webhook_endpoint" },
    });
  });

  it("sets the endpoint of an account without one from calls made at the same time: one creates it", async () => {
    const setup = await setupWebhooks();
    await setup.gateway.call("platform", "delete_webhook_endpoint");
    const answers = await Promise.all(
      Array.from({ length: 6 }, async (_, index) => {
        const response = await setup.gateway.call("platform", "set_webhook_endpoint", {
          url: `${setup.receiver.url}?call=${index}`,
          event_types: ["*"],
        });
        return { status: response.status, body: (await response.json()) as Json };
      }),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const secrets = answers.map((answer) => answer.body.data.secret).filter((secret) => secret !== null);
    expect(secrets).toHaveLength(1);
    const ids = new Set(answers.map((answer) => (answer.body.data.endpoint as { id: string }).id));
    expect(ids.size).toBe(1);
    const { db } = setup.gateway.gateway.core.store;
    expect(await db.selectFrom("webhook_secrets").selectAll().execute()).toHaveLength(1);
  });
});
