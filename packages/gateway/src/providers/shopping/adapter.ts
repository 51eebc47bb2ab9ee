// Calls to the shop's member API ("さくらマーケット" v2: snake_case, `_jpy` integer amounts, cart "lines", watch
// list "entries") with the connection's bearer token, and the mapping of its shapes onto the gateway's.
import { type Static, Type } from "@sinclair/typebox";
import { memberCall } from "../member-call.ts";
import { Nullable } from "../schemas.ts";
import type { OperationContext } from "../types.ts";
import { yen } from "./schemas.ts";

// The shop's answers, checked before they are mapped or stored (snapshots, price_watch.triggered events).
const NullableInteger = Nullable(Type.Integer());
const NativeLine = Type.Object({
  sku: Type.String(),
  item_name: Nullable(Type.String()),
  qty: Type.Integer(),
  unit_price_jpy: NullableInteger,
});
const NativeCart = Type.Object({ cart: Type.Object({ lines: Type.Array(NativeLine), subtotal_jpy: NullableInteger }) });
type NativeCart = Static<typeof NativeCart>;
const NativeWatchEntry = Type.Object({
  sku: Type.String(),
  item_name: Nullable(Type.String()),
  target_price_jpy: NullableInteger,
  current_price_jpy: NullableInteger,
  registered_at: Type.String(),
});
export type NativeWatchEntry = Static<typeof NativeWatchEntry>;
const Deleted = { deleted: Type.Integer() };
const CartAnswer = NativeCart;
const RemovedLineAnswer = Type.Object({ ...NativeCart.properties, ...Deleted });
const WatchlistAnswer = Type.Object({ entries: Type.Array(NativeWatchEntry) });
const WatchAnswer = Type.Object({ created: Type.Boolean(), entry: NativeWatchEntry });
const UnwatchAnswer = Type.Object(Deleted);

export const nativeErrorMessage = (body: unknown): string | undefined => {
  const message = (body as { error?: { message?: unknown } } | null)?.error?.message;
  return typeof message === "string" ? message : undefined;
};

const sku = (productId: string) => `/${encodeURIComponent(productId)}`;

export function toCart(native: NativeCart) {
  const items = native.cart.lines.map((line) => ({
    product_id: line.sku,
    title: line.item_name ?? null,
    quantity: line.qty,
    price: yen(line.unit_price_jpy),
  }));
  return { items, subtotal: yen(native.cart.subtotal_jpy), item_count: items.length };
}

export const shop = {
  cart: (ctx: OperationContext) => memberCall(ctx, { path: "/api/v2/cart", answer: CartAnswer }),
  addLine: (ctx: OperationContext, productId: string, qty: number) =>
    memberCall(ctx, {
      method: "POST",
      path: "/api/v2/cart/lines",
      body: { sku: productId, qty },
      answer: CartAnswer,
    }),
  removeLine: (ctx: OperationContext, productId: string) =>
    memberCall(ctx, { method: "DELETE", path: `/api/v2/cart/lines${sku(productId)}`, answer: RemovedLineAnswer }),
  clearCart: (ctx: OperationContext) => memberCall(ctx, { method: "DELETE", path: "/api/v2/cart", answer: CartAnswer }),
  watchlist: (ctx: OperationContext) => memberCall(ctx, { path: "/api/v2/watchlist", answer: WatchlistAnswer }),
  watch: (ctx: OperationContext, productId: string, targetPriceJpy: number | null) =>
    memberCall(ctx, {
      method: "PUT",
      path: `/api/v2/watchlist${sku(productId)}`,
      body: { target_price_jpy: targetPriceJpy },
      answer: WatchAnswer,
    }),
  unwatch: (ctx: OperationContext, productId: string) =>
    memberCall(ctx, { method: "DELETE", path: `/api/v2/watchlist${sku(productId)}`, answer: UnwatchAnswer }),
};
