// search_menus, and everything create_order, get_order and cancel_order must refuse without changing anything: wrong
// types, unknown fields, zero and negative quantities, a dish twice, the app's refusals (sold out, closed, under the
// minimum, outside Tokyo, unknown restaurant or dish), unknown ids, another account's and another customer's orders;
// Idempotency-Key replays; delivery addresses kept out of the logs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureLog } from "../log-capture.ts";
import { callOperation, connectUser, copies, otherAccount, type ProviderSetup } from "../stateful/provider-setup.ts";
import { address, getOrder, orderInput, placeOrder, startDelivery } from "./setup.ts";

const log = captureLog();
let s: ProviderSetup;
beforeAll(async () => {
  s = await startDelivery({ gateway: { logger: { level: "trace", stream: log.stream } } });
});
afterAll(async () => s?.close());

const create = (input: unknown, headers: Record<string, string> = {}) =>
  callOperation(s, "create_order", input, { headers });

describe("search_menus", () => {
  it("finds dishes by keyword with their prices in JPY, and pages through the restaurants", async () => {
    const gyoza = await callOperation(s, "search_menus", { keyword: "餃子" });
    expect(gyoza.status, gyoza.text).toBe(200);
    expect(gyoza.body.data.menus.map((m: any) => [m.restaurant.id, m.items.map((i: any) => i.id)])).toEqual([
      ["kitchen_hayate", ["item_hayate_gyoza"]],
    ]);
    expect(gyoza.body.data.menus[0].items[0].price).toEqual({ amount: 450, currency: "JPY" });
    // Full-width and half-width forms match alike (NFKC), as upper and lower case do.
    const wide = await callOperation(s, "search_menus", { keyword: "ＧＹＯＺＡ" });
    expect(wide.body.data.menus.map((m: any) => [m.restaurant.id, m.items.map((i: any) => i.id)])).toEqual([
      ["kitchen_hayate", ["item_hayate_gyoza"]],
    ]);
    const curry = await callOperation(s, "search_menus", { keyword: "ｶﾚｰ" });
    expect(curry.body.data.menus.map((m: any) => m.restaurant.id)).toEqual(["kitchen_akatsuki"]);
    const page1 = await callOperation(s, "search_menus", { limit: 5 });
    expect(page1.body.data.total).toBe(8);
    expect(page1.body.pagination).toEqual({ next_cursor: expect.any(String), has_more: true });
    const page2 = await callOperation(s, "search_menus", { limit: 5, cursor: page1.body.pagination.next_cursor });
    expect(page2.body.data.menus).toHaveLength(3);
    expect(page2.body.pagination).toEqual({ next_cursor: null, has_more: false });
    const closed = (await callOperation(s, "search_menus", { cuisine: "tempura" })).body.data.menus;
    expect(closed.map((m: any) => [m.restaurant.id, m.restaurant.open])).toEqual([["kitchen_kaminari", false]]);
  });
});

describe("bad input changes nothing", () => {
  it("refuses wrong types, unknown fields, zero and negative quantities, empty orders with 400 and every field", async () => {
    const before = (await copies(s)).length;
    const line = { item_id: "item_hayate_shoyu", quantity: 1 };
    const cases: [Record<string, unknown>, { path: string; message: string }[]][] = [
      [orderInput({ items: [{ ...line, quantity: 0 }] }), [{ path: "/items/0/quantity", message: "must be >= 1" }]],
      [orderInput({ items: [{ ...line, quantity: -2 }] }), [{ path: "/items/0/quantity", message: "must be >= 1" }]],
      [
        orderInput({ items: [{ ...line, quantity: 1.5 }] }),
        [{ path: "/items/0/quantity", message: "must be integer" }],
      ],
      [
        orderInput({ items: [{ ...line, quantity: "2" }] }),
        [{ path: "/items/0/quantity", message: "must be integer" }],
      ],
      [orderInput({ items: [] }), [{ path: "/items", message: "must NOT have fewer than 1 items" }]],
      [
        orderInput({ items: [{ ...line, size: "L" }] }),
        [{ path: "/items/0/size", message: "is not an allowed property" }],
      ],
      [orderInput({ tip: 300 }), [{ path: "/tip", message: "is not an allowed property" }]],
      [
        orderInput({ delivery_address: " " }),
        [{ path: "/delivery_address", message: "must contain something other than spaces" }],
      ],
      [
        { restaurant_id: 7, items: "ramen" },
        [
          { path: "/delivery_address", message: "is required" },
          { path: "/restaurant_id", message: "must be string" },
          { path: "/items", message: "must be array" },
        ],
      ],
    ];
    for (const [input, details] of cases) {
      const refused = await create(input);
      expect(refused.status, JSON.stringify(input)).toBe(400);
      expect(refused.body.error).toMatchObject({ code: "invalid_request", retryable: false, details });
      expect(refused.body.error.message).toBe("The input of delivery:create_order is invalid");
      expect(refused.body.error.provider).toBeUndefined();
    }
    const twice = await create(orderInput({ items: [line, { ...line, quantity: 2 }] }));
    expect(twice.status).toBe(400);
    expect(twice.body.error).toMatchObject({
      code: "invalid_request",
      message: "An order lists each dish once: add up the quantities on one line",
      details: [{ path: "/items/1/item_id", message: "is already ordered on another line" }],
    });
    expect((await copies(s)).length).toBe(before);
  });

  it("the app's refusals: 422 for sold out, closed, under the minimum, outside Tokyo; 404 for unknown ids", async () => {
    const before = (await copies(s)).length;
    const refusals: [Record<string, unknown>, number, string][] = [
      [orderInput({ items: [{ item_id: "item_hayate_tsukemen", quantity: 1 }] }), 422, "is sold out"],
      [
        {
          ...orderInput(),
          restaurant_id: "kitchen_kaminari",
          items: [{ item_id: "item_kaminari_tendon", quantity: 1 }],
        },
        422,
        "is not taking orders now",
      ],
      [
        { ...orderInput(), restaurant_id: "kitchen_maguro", items: [{ item_id: "item_maguro_tekka", quantity: 1 }] },
        422,
        "at least ¥2000 (this one is ¥1800)",
      ],
      [orderInput({ delivery_address: "神奈川県横浜市西区みなとみらい2-2-1" }), 422, "within Tokyo"],
      [orderInput({ restaurant_id: "kitchen_nowhere" }), 404, "No store kitchen_nowhere"],
      [orderInput({ items: [{ item_id: "item_maguro_tekka", quantity: 1 }] }), 404, "No item item_maguro_tekka"],
    ];
    for (const [input, status, message] of refusals) {
      const refused = await create(input);
      expect(refused.status, refused.text).toBe(status);
      expect(refused.body.error).toMatchObject({
        code: status === 422 ? "provider_rejected" : "not_found",
        provider: "delivery",
        retryable: false,
        message: expect.stringContaining(message),
      });
      expect(refused.text).not.toContain("横浜");
    }
    expect((await copies(s)).length).toBe(before);
  });

  it("unknown and another account's ids are 404 without asking the app; another customer's is 404 from the app", async () => {
    const mine = await placeOrder(s);
    const other = await otherAccount(s);
    for (const id of [mine.id, "ord_0000000000000000000000", "MP-AAAAAAAA"]) {
      for (const operation of ["get_order", "cancel_order"]) {
        const refused = await callOperation(s, operation, { order_id: id }, other);
        expect(refused.status).toBe(404);
        expect(refused.body.error).toEqual({
          code: "not_found",
          message: `There is no order ${id}`,
          request_id: refused.headers.get("x-request-id"),
          retryable: false,
        });
      }
    }
    const secondCustomer = await connectUser(s.t, "delivery", "user_2", "demo2");
    const theirs = await callOperation(s, "get_order", { order_id: mine.id }, { connectionId: secondCustomer });
    expect(theirs.status).toBe(404);
    expect(theirs.body.error).toMatchObject({ code: "not_found", provider: "delivery" });
    expect(await getOrder(s, mine.id)).toEqual(mine);
    // Once the order is cancelled, another customer's cancel still meets the app's 404, not the copy's status.
    expect((await callOperation(s, "cancel_order", { order_id: mine.id })).status).toBe(200);
    const cancelAgain = await callOperation(s, "cancel_order", { order_id: mine.id }, { connectionId: secondCustomer });
    expect(cancelAgain.status).toBe(404);
    expect(cancelAgain.body.error).toMatchObject({ code: "not_found", provider: "delivery" });
    expect(cancelAgain.body.error).not.toHaveProperty("details");
    const wrongType = await callOperation(s, "get_order", { order_id: 12 });
    expect(wrongType.body.error.details).toEqual([{ path: "/order_id", message: "must be string" }]);
  });
});

describe("idempotency and privacy", () => {
  it("replays an Idempotency-Key byte for byte without ordering twice; a different body is 409", async () => {
    const before = (await copies(s)).length;
    const first = await create(orderInput(), { "idempotency-key": "lunch-0412" });
    expect(first.status).toBe(200);
    const replay = await create(orderInput(), { "idempotency-key": "lunch-0412" });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.text).toBe(first.text);
    expect((await copies(s)).length).toBe(before + 1);
    const other = await create(orderInput({ notes: "大盛り" }), { "idempotency-key": "lunch-0412" });
    expect(other.status).toBe(409);
    expect(other.body.error.details).toEqual({ reason: "idempotency_key_reused" });
  });

  it("never writes a delivery address to the logs", () => {
    expect(log.rawLines().length).toBeGreaterThan(20);
    expect(log.rawLines().filter((line) => line.includes(address) || line.includes("西新宿2-8-1"))).toEqual([]);
  });
});
