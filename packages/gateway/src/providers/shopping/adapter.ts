// Calls to the shop's member API ("さくらマーケット" v2: snake_case, `_jpy` integer amounts, cart "lines", watch
// list "entries") with the connection's bearer token, and the mapping of its shapes onto the gateway's.
import { withAccessToken } from "../../core/connections/with-access-token.ts";
import type { OperationContext } from "../types.ts";
import type { UpstreamRequest } from "../upstream.ts";
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

function call<T>(ctx: OperationContext, request: UpstreamRequest): Promise<T> {
  return withAccessToken(ctx, (accessToken) => ctx.upstream.request<T>({ ...request, accessToken }));
}

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
  cart: (ctx: OperationContext) => call<NativeCart>(ctx, { path: "/api/v2/cart" }),
  addLine: (ctx: OperationContext, productId: string, qty: number) =>
    call<NativeCart>(ctx, { method: "POST", path: "/api/v2/cart/lines", body: { sku: productId, qty } }),
  removeLine: (ctx: OperationContext, productId: string) =>
    call<NativeCart & { deleted: number }>(ctx, { method: "DELETE", path: `/api/v2/cart/lines${sku(productId)}` }),
  clearCart: (ctx: OperationContext) => call<NativeCart>(ctx, { method: "DELETE", path: "/api/v2/cart" }),
  watchlist: (ctx: OperationContext) => call<{ entries: NativeWatchEntry[] }>(ctx, { path: "/api/v2/watchlist" }),
  watch: (ctx: OperationContext, productId: string, targetPriceJpy: number | null) =>
    call<{ created: boolean; entry: NativeWatchEntry }>(ctx, {
      method: "PUT",
      path: `/api/v2/watchlist${sku(productId)}`,
      body: { target_price_jpy: targetPriceJpy },
    }),
  unwatch: (ctx: OperationContext, productId: string) =>
    call<{ deleted: number }>(ctx, { method: "DELETE", path: `/api/v2/watchlist${sku(productId)}` }),
};
