// Price watches: the shop keeps the watch list (product and optional target price); the gateway keeps, per
// connection and product, a snapshot of the last price it saw, which check_price_drops compares with.
import { Type } from "@sinclair/typebox";
import { keysetPage } from "../paging.ts";
import { Cursor, Limit, StrictObject } from "../schemas.ts";
import { defineOperation, type OperationContext } from "../types.ts";
import { type NativeWatchEntry, shop } from "./adapter.ts";
import { action, PriceWatch, ProductId, yen } from "./schemas.ts";

export const snapshotKind = "price";

/** What the gateway remembers of a watched product between checks. */
export interface PriceSnapshot {
  amount: number | null;
  title: string | null;
  /** When check_price_drops last looked; null until the first check. */
  checked_at: number | null;
  /** Whether the target was met at the last check: price_watch.triggered fires when this turns true. */
  notified: boolean;
  /** The target `notified` is about (absent in snapshots written before it was kept: any target re-arms them). */
  target?: number | null;
}

function connectionOf(ctx: OperationContext) {
  if (!ctx.connection || !ctx.core.connections) throw new Error("shopping operations run with a connection");
  return { connection: ctx.connection, snapshots: ctx.core.connections.snapshots };
}

export function toWatch(ctx: OperationContext, entry: NativeWatchEntry, snapshot: PriceSnapshot | undefined) {
  const { connection } = connectionOf(ctx);
  return {
    product_id: entry.sku,
    title: entry.item_name ?? null,
    target_price: yen(entry.target_price_jpy),
    current_price: yen(entry.current_price_jpy),
    snapshot_price: yen(snapshot?.amount),
    connection_id: connection.id,
    external_ref: connection.externalRef,
    watched_at: new Date(entry.registered_at).toISOString(),
    last_checked_at: snapshot?.checked_at ? new Date(snapshot.checked_at).toISOString() : null,
  };
}

export const loadSnapshots = (ctx: OperationContext) => {
  const { connection, snapshots } = connectionOf(ctx);
  return snapshots.all<PriceSnapshot>(connection.id, snapshotKind);
};

const exampleWatch = {
  product_id: "prod_0008",
  title: "【みなと製作所】ワイヤレスイヤホン ノイズキャンセリング ブラック",
  target_price: { amount: 6980, currency: "JPY" },
  current_price: { amount: 7480, currency: "JPY" },
  snapshot_price: { amount: 7480, currency: "JPY" },
  connection_id: "conn_5kQ2hV8xLm3Rt7YpWz1BcD",
  external_ref: "user_8842",
  watched_at: "2026-11-21T09:00:00.000Z",
  last_checked_at: null,
};

export const watchPrice = defineOperation({
  id: "watch_price",
  summary: "Watch a product's price",
  description:
    "Adds the product to the shopper's watch list (or changes its target) and stores its current price as the " +
    "snapshot that check_price_drops compares with. `target_price` is in JPY.",
  auth: "credentials",
  input: StrictObject({
    product_id: ProductId,
    target_price: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100_000_000, description: "Target price in JPY." }),
    ),
  }),
  output: Type.Object(
    { action: action("watch_price"), created: Type.Boolean(), watch: PriceWatch },
    { additionalProperties: false },
  ),
  example: {
    input: { product_id: "prod_0008", target_price: 6980 },
    output: { action: "watch_price", created: true, watch: exampleWatch },
  },
  async handle(input, ctx) {
    const { connection, snapshots } = connectionOf(ctx);
    const { created, entry } = await shop.watch(ctx, input.product_id, input.target_price ?? null);
    const existing = (await loadSnapshots(ctx)).get(input.product_id);
    // A new watch starts from today's price; watching again keeps the snapshot, and a changed target re-arms the
    // notification (the same target again does not: its price_watch.triggered has fired already).
    const target = entry.target_price_jpy;
    const snapshot: PriceSnapshot =
      existing && !created
        ? { ...existing, notified: existing.notified && existing.target === target, target }
        : { amount: entry.current_price_jpy, title: entry.item_name, checked_at: null, notified: false, target };
    await snapshots.put(ctx.core.store.db, connection.id, snapshotKind, input.product_id, snapshot);
    return { data: { action: "watch_price" as const, created, watch: toWatch(ctx, entry, snapshot) } };
  },
});

export const listPriceWatches = defineOperation({
  id: "list_price_watches",
  summary: "List the shopper's price watches",
  description: "The watched products (at most 50 in all) with their target, current and snapshot prices.",
  auth: "credentials",
  readOnly: true,
  input: StrictObject({ cursor: Type.Optional(Cursor), limit: Type.Optional(Limit) }),
  output: Type.Object(
    { action: action("list_price_watches"), watches: Type.Array(PriceWatch) },
    { additionalProperties: false },
  ),
  example: { input: {}, output: { action: "list_price_watches", watches: [exampleWatch] } },
  async handle(input, ctx) {
    // The shop answers the whole list (50 at most): the gateway pages it, oldest watch first.
    const [{ entries }, snapshots] = await Promise.all([shop.watchlist(ctx), loadSnapshots(ctx)]);
    const watchedAt = (entry: NativeWatchEntry) => ({ createdAt: Date.parse(entry.registered_at) || 0, id: entry.sku });
    const page = keysetPage(entries, watchedAt, input.cursor, input.limit ?? 20);
    const watches = page.items.map((entry) => toWatch(ctx, entry, snapshots.get(entry.sku)));
    return { data: { action: "list_price_watches" as const, watches }, pagination: page.pagination };
  },
});

export const unwatchPrice = defineOperation({
  id: "unwatch_price",
  summary: "Stop watching a product's price",
  description: "Removes the product from the watch list; `removed` is false when it was not watched.",
  auth: "credentials",
  input: StrictObject({ product_id: ProductId }),
  output: Type.Object({ action: action("unwatch_price"), removed: Type.Boolean() }, { additionalProperties: false }),
  example: { input: { product_id: "prod_0008" }, output: { action: "unwatch_price", removed: true } },
  async handle(input, ctx) {
    const { connection, snapshots } = connectionOf(ctx);
    const { deleted } = await shop.unwatch(ctx, input.product_id);
    await snapshots.remove(ctx.core.store.db, connection.id, snapshotKind, input.product_id);
    return { data: { action: "unwatch_price" as const, removed: deleted > 0 } };
  },
});
