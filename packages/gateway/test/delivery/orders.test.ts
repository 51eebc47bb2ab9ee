// The delivery order state machine over real HTTP, every transition including the refused ones: placed → accepted →
// preparing → ready_for_pickup → picked_up → delivered step by step (order.updated each time, its data.object equal
// to get_order then), the same run paced by the sandbox's tick, cancellation by the caller from every state before
// picked_up and by the restaurant, 422 from picked_up on (state unchanged), 409 for a second cancellation.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  callOperation,
  delivered,
  deliveredTypes,
  type ProviderSetup,
  receivedAbout,
} from "../stateful/provider-setup.ts";
import { eventually } from "../webhooks/fake-clock.ts";
import { address, getOrder, kitchen, pace, placeOrder, startDelivery } from "./setup.ts";

let s: ProviderSetup;
beforeAll(async () => {
  s = await startDelivery();
});
afterAll(async () => s?.close());

const yen = (amount: number) => ({ amount, currency: "JPY" });
const cancel = (id: string) => callOperation(s, "cancel_order", { order_id: id });
const steps = ["accepted", "preparing", "ready_for_pickup", "picked_up", "delivered"] as const;

/** Moves the order one step at the sandbox, then checks its order.updated and that get_order answers that object. */
async function step(order: { id: string; order_reference: string }, status: string) {
  const native = await kitchen(s, "advance", order);
  expect(native.order_no).toBe(order.order_reference);
  const event = await delivered(s, "order.updated", order.id, (object) => object.status === status);
  expect(event.data.object).toEqual(await getOrder(s, order.id));
  return event.data.object;
}

describe("from placed to delivered", () => {
  it("answers placed with the menu's prices in JPY, in the envelope", async () => {
    const created = await callOperation(s, "create_order", {
      restaurant_id: "kitchen_hayate",
      items: [
        { item_id: "item_hayate_shoyu", quantity: 2 },
        { item_id: "item_hayate_gyoza", quantity: 1 },
      ],
      delivery_address: address,
      notes: "オートロック 801",
    });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toEqual({
      data: created.body.data,
      meta: { source: "delivery", fetched_at: expect.any(String) },
      pagination: null,
    });
    const order = created.body.data;
    expect(order).toEqual({
      id: expect.stringMatching(/^ord_[0-9A-Za-z]{22}$/),
      status: "placed",
      restaurant_id: "kitchen_hayate",
      restaurant_name: "新宿 麺屋 はやて",
      items: [
        { item_id: "item_hayate_shoyu", name: "醤油らーめん", quantity: 2, unit_price: yen(950), amount: yen(1900) },
        { item_id: "item_hayate_gyoza", name: "焼き餃子 (6個)", quantity: 1, unit_price: yen(450), amount: yen(450) },
      ],
      subtotal: yen(2350),
      delivery_fee: yen(350),
      total: yen(2700),
      delivery_address: address,
      notes: "オートロック 801",
      order_reference: expect.stringMatching(/^MP-[0-9A-Z]{8}$/),
      courier: null,
      estimated_delivery_at: expect.any(String),
      cancelled_by: null,
      created_at: expect.any(String),
      updated_at: order.created_at,
      delivered_at: null,
      cancelled_at: null,
    });
    // kitchen_hayate: 12 minutes in the kitchen and a 15-minute ride.
    expect(Date.parse(order.estimated_delivery_at) - Date.parse(order.created_at)).toBe(27 * 60_000);
    expect(await getOrder(s, order.id)).toEqual(order);
    expect(deliveredTypes(s, order.id)).toEqual([]);
  });

  it("each kitchen and courier step is one order.updated whose object get_order answers", async () => {
    const order = await placeOrder(s);
    const accepted = await step(order, "accepted");
    expect(accepted).toMatchObject({ courier: null, estimated_delivery_at: order.estimated_delivery_at });
    await step(order, "preparing");
    const ready = await step(order, "ready_for_pickup");
    expect(ready.courier).toEqual({ name: expect.any(String), vehicle: expect.stringMatching(/^(bicycle|scooter)$/) });
    const pickedUp = await step(order, "picked_up");
    expect(Date.parse(pickedUp.estimated_delivery_at) - Date.parse(pickedUp.updated_at)).toBe(15 * 60_000);
    const done = await step(order, "delivered");
    expect(done).toMatchObject({ estimated_delivery_at: null, delivered_at: done.updated_at, courier: ready.courier });
    expect(deliveredTypes(s, order.id)).toEqual(steps.map(() => "order.updated"));
    expect(receivedAbout(s, order.id).map((e) => e.data.object.status)).toEqual([...steps]);
  });

  it("paced by the sandbox's tick, the order goes all the way by itself with an event per change", async () => {
    await pace(s, 30);
    try {
      const order = await placeOrder(s);
      const last = await delivered(s, "order.updated", order.id, (object) => object.status === "delivered");
      await eventually(() => (receivedAbout(s, order.id).length >= steps.length ? true : undefined));
      const events = receivedAbout(s, order.id).sort((a, b) =>
        a.data.object.updated_at.localeCompare(b.data.object.updated_at),
      );
      expect(events.map((e) => e.data.object.status)).toEqual([...steps]);
      expect(last.data.object).toEqual(await getOrder(s, order.id));
    } finally {
      await pace(s, null);
    }
  });
});

describe("cancellation", () => {
  it("by the caller from every state before picked_up: cancelled, order.updated with the object get_order answers", async () => {
    for (const [index, status] of ["placed", ...steps.slice(0, 3)].entries()) {
      const order = await placeOrder(s);
      for (const to of steps.slice(0, index)) await step(order, to);
      expect((await getOrder(s, order.id)).status).toBe(status);
      const cancelled = await cancel(order.id);
      expect(cancelled.status, cancelled.text).toBe(200);
      expect(cancelled.body.data).toMatchObject({
        id: order.id,
        status: "cancelled",
        cancelled_by: "caller",
        cancelled_at: cancelled.body.data.updated_at,
        estimated_delivery_at: null,
      });
      const event = await delivered(s, "order.updated", order.id, (object) => object.status === "cancelled");
      expect(event.data.object).toEqual(cancelled.body.data);
      expect(event.data.object).toEqual(await getOrder(s, order.id));
    }
  });

  it("a second cancellation is 409 conflict and changes nothing", async () => {
    const order = await placeOrder(s);
    const first = await cancel(order.id);
    const again = await cancel(order.id);
    expect(again.status).toBe(409);
    expect(again.body.error).toEqual({
      code: "conflict",
      message: `The order ${order.id} is cancelled: it cannot become cancelled`,
      request_id: again.headers.get("x-request-id"),
      retryable: false,
      details: { reason: "illegal_transition", status: "cancelled", requested: "cancelled" },
      fix: "Read the order again and act on its current status.",
    });
    expect(await getOrder(s, order.id)).toEqual(first.body.data);
    await delivered(s, "order.updated", order.id);
    expect(deliveredTypes(s, order.id)).toEqual(["order.updated"]);
  });

  it("from picked_up on, the app refuses: 422 provider_rejected from delivery, state unchanged", async () => {
    const order = await placeOrder(s);
    for (const to of steps.slice(0, 4)) await step(order, to);
    const before = await getOrder(s, order.id);
    const refused = await cancel(order.id);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({
      code: "provider_rejected",
      provider: "delivery",
      retryable: false,
      message: expect.stringContaining("is on its way: it can no longer be canceled"),
    });
    expect(await getOrder(s, order.id)).toEqual(before);
    await step(order, "delivered");
    const late = await cancel(order.id);
    expect([late.status, late.body.error.code]).toEqual([422, "provider_rejected"]);
    expect(late.body.error.message).toContain("was delivered");
    expect((await getOrder(s, order.id)).status).toBe("delivered");
    expect(deliveredTypes(s, order.id)).toHaveLength(steps.length);
  });

  it("by the restaurant before the food is ready: cancelled by the restaurant, then the caller's cancel is 409", async () => {
    const order = await placeOrder(s);
    await step(order, "accepted");
    const native = await kitchen(s, "reject", order);
    expect(native.status).toBe("CANCELED");
    const event = await delivered(s, "order.updated", order.id, (object) => object.status === "cancelled");
    expect(event.data.object).toMatchObject({ cancelled_by: "restaurant", estimated_delivery_at: null });
    expect(event.data.object).toEqual(await getOrder(s, order.id));
    expect((await cancel(order.id)).status).toBe(409);
    expect(receivedAbout(s, order.id).map((e) => e.data.object.status)).toEqual(["accepted", "cancelled"]);
  });
});
