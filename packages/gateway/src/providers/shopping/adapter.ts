// Calls to the shop's member API ("さくらマーケット" v2: snake_case, `_jpy` integer amounts, cart "lines", watch
// list "entries") with the connection's bearer token, and the mapping of its shapes onto the gateway's.
import { memberCall } from "../member-call.ts";
import type { OperationContext } from "../types.ts";
import { yen } from "./schemas.ts";

interface NativeLine {
  sku: string;
  item_name: string | null;
  qty: number;
  unit_price_jpy: number | null;
}
interface NativeCart {
  cart: { lines: NativeLine[]; subtotal_jpy: number | null };
}
export interface NativeWatchEntry {
  sku: string;
  item_name: string | null;
  target_price_jpy: number | null;
  current_price_jpy: number | null;
  registered_at: string;
}

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
  cart: (ctx: OperationContext) => memberCall<NativeCart>(ctx, { path: "/api/v2/cart" }),
  addLine: (ctx: OperationContext, productId: string, qty: number) =>
    memberCall<NativeCart>(ctx, { method: "POST", path: "/api/v2/cart/lines", body: { sku: productId, qty } }),
  removeLine: (ctx: OperationContext, productId: string) =>
    memberCall<NativeCart & { deleted: number }>(ctx, {
      method: "DELETE",
      path: `/api/v2/cart/lines${sku(productId)}`,
    }),
  clearCart: (ctx: OperationContext) => memberCall<NativeCart>(ctx, { method: "DELETE", path: "/api/v2/cart" }),
  watchlist: (ctx: OperationContext) => memberCall<{ entries: NativeWatchEntry[] }>(ctx, { path: "/api/v2/watchlist" }),
  watch: (ctx: OperationContext, productId: string, targetPriceJpy: number | null) =>
    memberCall<{ created: boolean; entry: NativeWatchEntry }>(ctx, {
      method: "PUT",
      path: `/api/v2/watchlist${sku(productId)}`,
      body: { target_price_jpy: targetPriceJpy },
    }),
  unwatch: (ctx: OperationContext, productId: string) =>
    memberCall<{ deleted: number }>(ctx, { method: "DELETE", path: `/api/v2/watchlist${sku(productId)}` }),
};
