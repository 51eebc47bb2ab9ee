// check_price_drops: refreshes every watched product's price at the shop, compares it with the snapshot the gateway
// stored, updates the snapshots, and records price_watch.triggered for each target newly met, in one transaction.
import { Type } from "@sinclair/typebox";
import { defineOperation } from "../types.ts";
import { checkShape } from "../upstream.ts";
import { shop } from "./adapter.ts";
import { action, EmptyInput, PriceDrop, PriceWatch, yen } from "./schemas.ts";
import { type PriceSnapshot, snapshotKind, toWatch } from "./watches.ts";

/** Percent the price fell from `before` to `after`, one decimal; null when either is unknown. */
export function dropPercent(before: number | null, after: number | null): number | null {
  if (before === null || after === null || before <= 0) return null;
  return Math.round(((before - after) / before) * 1000) / 10 || 0;
}

export const checkPriceDrops = defineOperation({
  id: "check_price_drops",
  summary: "Check watched products for price drops",
  description:
    "Refreshes every watched product and compares its new price with the stored snapshot and the target price. " +
    "`drops` has one entry per watched product, in watch-list order: `drop_percent` is positive for a drop, 0 when " +
    "unchanged, negative for a rise. The snapshots then hold the new prices. A target met for the first time since " +
    "it was last missed records the event price_watch.triggered.",
  auth: "credentials",
  input: EmptyInput,
  output: Type.Object(
    { action: action("check_price_drops"), drops: Type.Array(PriceDrop) },
    { additionalProperties: false },
  ),
  example: {
    input: {},
    output: {
      action: "check_price_drops",
      drops: [
        {
          product_id: "prod_0008",
          title: "【みなと製作所】ワイヤレスイヤホン ノイズキャンセリング ブラック",
          old_price: { amount: 7480, currency: "JPY" },
          new_price: { amount: 6980, currency: "JPY" },
          drop_percent: 6.7,
          target_hit: true,
        },
      ],
    },
  },
  async handle(_input, ctx) {
    const connection = ctx.connection;
    const snapshots = ctx.core.connections?.snapshots;
    if (!connection || !snapshots) throw new Error("check_price_drops runs with a connection");
    const { entries } = await shop.watchlist(ctx);
    const now = ctx.clock.now();
    const watched = new Set(entries.map((e) => e.sku));
    // The snapshots are read under the connection's lock: of two checks at once, the second compares with what the
    // first stored, so a target newly met records its event once.
    const drops = await ctx.core.store.db.transaction().execute(async (trx) => {
      const stored = await snapshots.allLocked<PriceSnapshot>(trx, connection.id, snapshotKind);
      const triggered: Record<string, unknown>[] = [];
      const drops = [];
      for (const entry of entries) {
        const before = stored.get(entry.sku);
        const oldAmount = before?.amount ?? null;
        const newAmount = entry.current_price_jpy ?? null;
        const target = entry.target_price_jpy;
        const targetHit = target !== null && newAmount !== null && newAmount <= target;
        const next: PriceSnapshot = {
          amount: newAmount ?? oldAmount,
          title: entry.item_name ?? before?.title ?? null,
          checked_at: now,
          notified: targetHit,
          target: entry.target_price_jpy,
        };
        await snapshots.put(trx, connection.id, snapshotKind, entry.sku, next);
        if (targetHit && !before?.notified) {
          // The event carries the watch as list_price_watches shows it: never one that list would refuse.
          const watch = toWatch(ctx, entry, next);
          checkShape(PriceWatch, watch, "The price watch made of the shop's answer");
          triggered.push(watch);
        }
        drops.push({
          product_id: entry.sku,
          title: next.title,
          old_price: yen(oldAmount),
          new_price: yen(newAmount),
          drop_percent: dropPercent(oldAmount, newAmount),
          target_hit: targetHit,
        });
      }
      // Watches removed at the shop itself leave no snapshot behind.
      for (const productId of stored.keys()) {
        if (!watched.has(productId)) await snapshots.remove(trx, connection.id, snapshotKind, productId);
      }
      for (const object of triggered) {
        await ctx.core.events.record(trx, { accountId: ctx.accountId, type: "price_watch.triggered", object });
      }
      return drops;
    });
    return { data: { action: "check_price_drops" as const, drops } };
  },
});
