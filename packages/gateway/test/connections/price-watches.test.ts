// Price watches and check_price_drops: the shop's prices move every 10 minutes (a function of seed and clock), the
// gateway compares each watched product's new price with its stored snapshot, and price_watch.triggered is
// recorded when a target is met. Expected values are computed from the sandbox's price function.
import { buildProducts, priceAt } from "@provider-gateway/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fieldProblems } from "../../src/providers/registry.ts";
import { connect, eventsOf, rawConnection, type ShoppingSetup, shopping, startShopping, T0 } from "./setup.ts";

const period = 600_000;
const T1 = T0 + period;
const products = buildProducts();
const price = (sku: string, at: number) => priceAt(products.get(sku)!, { seed: "sakura-market", periodMs: period }, at);
const skus = [...products.keys()];
// One product that gets cheaper from T0 to T1, one dearer, one unchanged (the price function is deterministic).
const falling = skus.find((sku) => price(sku, T1) < price(sku, T0))!;
const rising = skus.find((sku) => price(sku, T1) > price(sku, T0))!;
const steady = skus.find((sku) => price(sku, T1) === price(sku, T0))!;
const yen = (amount: number) => ({ amount, currency: "JPY" });
const title = (sku: string) => products.get(sku)!.item_name;
const percent = (before: number, after: number) => Math.round(((before - after) / before) * 1000) / 10;

let s: ShoppingSetup;
let connectionId: string;

beforeAll(async () => {
  s = await startShopping();
  connectionId = (await connect(s.t, "user_watch")).connection.id;
});
afterAll(async () => s?.close());

async function call(operation: string, body: unknown = {}) {
  const response = await shopping(s.t, operation, connectionId, body);
  const json = (await response.json()) as any;
  expect(response.status, JSON.stringify(json)).toBe(200);
  const { validateOutput } = s.t.gateway.registry.operation("shopping", operation)!;
  expect(validateOutput(json.data), JSON.stringify(fieldProblems(validateOutput.errors))).toBe(true);
  return json.data;
}

const watch = (sku: string, target: number | null, snapshot: number, lastChecked: number | null, now: number) => ({
  product_id: sku,
  title: title(sku),
  target_price: target === null ? null : yen(target),
  current_price: yen(price(sku, now)),
  snapshot_price: yen(snapshot),
  connection_id: connectionId,
  external_ref: "user_watch",
  watched_at: new Date(T0).toISOString(),
  last_checked_at: lastChecked === null ? null : new Date(lastChecked).toISOString(),
});

describe("price watches", () => {
  it("the fixture has a falling, a rising and a steady product between T0 and T1", () => {
    expect([falling, rising, steady].every(Boolean)).toBe(true);
  });

  it("watch_price stores today's price as the snapshot", async () => {
    expect(await call("watch_price", { product_id: falling, target_price: price(falling, T1) })).toEqual({
      action: "watch_price",
      created: true,
      watch: watch(falling, price(falling, T1), price(falling, T0), null, T0),
    });
    await call("watch_price", { product_id: rising });
    await call("watch_price", { product_id: steady, target_price: price(steady, T0) - 1 });
    expect(await call("list_price_watches")).toEqual({
      action: "list_price_watches",
      watches: [
        watch(falling, price(falling, T1), price(falling, T0), null, T0),
        watch(rising, null, price(rising, T0), null, T0),
        watch(steady, price(steady, T0) - 1, price(steady, T0), null, T0),
      ],
    });
  });

  it("check_price_drops with unchanged prices: 0 % and no target met", async () => {
    const data = await call("check_price_drops");
    expect(data).toEqual({
      action: "check_price_drops",
      drops: [falling, rising, steady].map((sku) => ({
        product_id: sku,
        title: title(sku),
        old_price: yen(price(sku, T0)),
        new_price: yen(price(sku, T0)),
        drop_percent: 0,
        target_hit: false,
      })),
    });
    expect(await eventsOf(s.t, "price_watch.triggered")).toEqual([]);
  });

  it("check_price_drops after the prices moved: drops, rises, the target met, snapshots updated", async () => {
    s.clock.set(T1);
    expect(await call("check_price_drops")).toEqual({
      action: "check_price_drops",
      drops: [
        {
          product_id: falling,
          title: title(falling),
          old_price: yen(price(falling, T0)),
          new_price: yen(price(falling, T1)),
          drop_percent: percent(price(falling, T0), price(falling, T1)),
          target_hit: true,
        },
        {
          product_id: rising,
          title: title(rising),
          old_price: yen(price(rising, T0)),
          new_price: yen(price(rising, T1)),
          drop_percent: percent(price(rising, T0), price(rising, T1)),
          target_hit: false,
        },
        {
          product_id: steady,
          title: title(steady),
          old_price: yen(price(steady, T0)),
          new_price: yen(price(steady, T0)),
          drop_percent: 0,
          target_hit: false,
        },
      ],
    });
    expect(percent(price(falling, T0), price(falling, T1))).toBeGreaterThan(0);
    expect(percent(price(rising, T0), price(rising, T1))).toBeLessThan(0);
    const triggered = await eventsOf(s.t, "price_watch.triggered");
    expect(triggered.map((e) => e.data.object)).toEqual([
      watch(falling, price(falling, T1), price(falling, T1), T1, T1),
    ]);
  });

  it("a second check compares with the new snapshots and does not trigger again", async () => {
    const data = await call("check_price_drops");
    expect(data.drops.map((d: any) => [d.product_id, d.old_price, d.drop_percent, d.target_hit])).toEqual([
      [falling, yen(price(falling, T1)), 0, true],
      [rising, yen(price(rising, T1)), 0, false],
      [steady, yen(price(steady, T1)), 0, false],
    ]);
    expect(await eventsOf(s.t, "price_watch.triggered")).toHaveLength(1);
  });

  it("watching again with the same target does not trigger again; a changed target met re-arms it", async () => {
    expect((await call("watch_price", { product_id: falling, target_price: price(falling, T1) })).created).toBe(false);
    await call("check_price_drops");
    expect(await eventsOf(s.t, "price_watch.triggered")).toHaveLength(1);
    await call("watch_price", { product_id: falling, target_price: price(falling, T1) + 1 });
    await call("check_price_drops");
    const triggered = await eventsOf(s.t, "price_watch.triggered");
    expect(triggered.map((e) => e.data.object.target_price)).toEqual([
      yen(price(falling, T1)),
      yen(price(falling, T1) + 1),
    ]);
  });

  it("a watch added at the shop itself has no snapshot yet: old_price and drop_percent are null", async () => {
    const row = await rawConnection(s.t, connectionId);
    const token = s.t.gateway.core.secretBox.open(row.access_token!);
    const direct = await fetch(`${s.sandboxUrl}/api/v2/watchlist/prod_0100`, {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(direct.status).toBe(201);
    const drops = (await call("check_price_drops")).drops;
    expect(drops.at(-1)).toEqual({
      product_id: "prod_0100",
      title: title("prod_0100"),
      old_price: null,
      new_price: yen(price("prod_0100", T1)),
      drop_percent: null,
      target_hit: false,
    });
  });

  it("unwatch_price removes the watch and its snapshot", async () => {
    expect(await call("unwatch_price", { product_id: rising })).toEqual({ action: "unwatch_price", removed: true });
    expect(await call("unwatch_price", { product_id: rising })).toEqual({ action: "unwatch_price", removed: false });
    const watches = (await call("list_price_watches")).watches.map((w: any) => w.product_id);
    expect(watches).toEqual([falling, steady, "prod_0100"]);
    const snapshots = await s.t.gateway.core.store.db
      .selectFrom("connection_snapshots")
      .select("key")
      .where("connection_id", "=", connectionId)
      .orderBy("key")
      .execute();
    expect(snapshots.map((r) => r.key)).toEqual([falling, steady, "prod_0100"].sort());
  });

  it("list_price_watches pages the list: `limit` at a time, oldest first, the cursor to the next", async () => {
    const whole = (await call("list_price_watches")).watches.map((w: any) => w.product_id);
    expect(whole).toEqual([falling, steady, "prod_0100"]);
    const first = await shopping(s.t, "list_price_watches", connectionId, { limit: 2 });
    const firstBody = (await first.json()) as any;
    expect(firstBody.data.watches.map((w: any) => w.product_id)).toEqual(whole.slice(0, 2));
    expect(firstBody.pagination).toEqual({ next_cursor: expect.any(String), has_more: true });
    const next = { limit: 2, cursor: firstBody.pagination.next_cursor };
    const secondBody = (await (await shopping(s.t, "list_price_watches", connectionId, next)).json()) as any;
    expect(secondBody.data.watches.map((w: any) => w.product_id)).toEqual(whole.slice(2));
    expect(secondBody.pagination).toEqual({ next_cursor: null, has_more: false });
    // The cursor holds a position, not a page number: the next page starts after the last one whatever its limit.
    const one = (await (await shopping(s.t, "list_price_watches", connectionId, { limit: 1 })).json()) as any;
    const rest = { limit: 20, cursor: one.pagination.next_cursor };
    const restBody = (await (await shopping(s.t, "list_price_watches", connectionId, rest)).json()) as any;
    expect(restBody.data.watches.map((w: any) => w.product_id)).toEqual(whole.slice(1));
    const refused = await shopping(s.t, "list_price_watches", connectionId, { limit: 101 });
    expect(refused.status).toBe(400);
    // Watches removed between two pages make the next page skip none of the others: not one before the cursor, nor
    // the one the cursor names.
    await call("unwatch_price", { product_id: whole[0] });
    const afterRemoval = (await (await shopping(s.t, "list_price_watches", connectionId, next)).json()) as any;
    expect(afterRemoval.data.watches.map((w: any) => w.product_id)).toEqual(whole.slice(2));
    await call("unwatch_price", { product_id: whole[1] });
    const lastGone = (await (await shopping(s.t, "list_price_watches", connectionId, next)).json()) as any;
    expect(lastGone.data.watches.map((w: any) => w.product_id)).toEqual(whole.slice(2));
  });

  it("watch_price on prod_offline: 502 provider_unavailable", async () => {
    const response = await shopping(s.t, "watch_price", connectionId, { product_id: "prod_offline" });
    expect(response.status).toBe(502);
    expect(((await response.json()) as any).error).toMatchObject({
      code: "provider_unavailable",
      provider: "shopping",
    });
  });
});

describe("checks at once", () => {
  it("record a target newly met once, whichever of them commits first", async () => {
    const racer = (await connect(s.t, "user_race")).connection.id;
    const watched = await shopping(s.t, "watch_price", racer, { product_id: "prod_0008", target_price: 100_000_000 });
    expect(watched.status).toBe(200);
    const answers = await Promise.all([1, 2, 3, 4].map(() => shopping(s.t, "check_price_drops", racer, {})));
    const bodies = (await Promise.all(answers.map((a) => a.json()))) as any[];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    const hit = (b: any) => b.data.drops.find((d: any) => d.product_id === "prod_0008").target_hit;
    expect(bodies.map(hit)).toEqual([true, true, true, true]);
    // The demo shopper's other watches may meet their targets too: each product's event is recorded once.
    const products = (await eventsOf(s.t, "price_watch.triggered"))
      .filter((e) => e.data.object.connection_id === racer)
      .map((e) => e.data.object.product_id);
    expect(products.filter((p) => p === "prod_0008")).toHaveLength(1);
    expect(new Set(products).size).toBe(products.length);
  });
});
