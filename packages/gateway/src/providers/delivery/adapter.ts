// Calls to the delivery app's partner API ("まんぷく便" v1: stores with their menus, orders) and the one mapping of each
// native shape onto the API objects. Order calls carry the connection's bearer token.
import { type Static, Type } from "@sinclair/typebox";
import { memberCall } from "../member-call.ts";
import { Revision } from "../schemas.ts";
import type { OperationContext } from "../types.ts";
import type { UpstreamRequest } from "../upstream.ts";

const NullableString = Type.Union([Type.String(), Type.Null()]);
const nativeStatuses = ["RECEIVED", "ACCEPTED", "COOKING", "READY", "PICKED_UP", "DELIVERED", "CANCELED"] as const;

/** The app's order as it answers it and pushes it in `order.status_changed` hooks. */
export const NativeOrder = Type.Object({
  order_no: Type.String({ minLength: 1 }),
  store_id: Type.String(),
  store_name: Type.String(),
  lines: Type.Array(
    Type.Object({
      item_code: Type.String(),
      name: Type.String(),
      qty: Type.Integer(),
      unit_price_yen: Type.Integer(),
      line_total_yen: Type.Integer(),
    }),
  ),
  subtotal_yen: Type.Integer(),
  delivery_fee_yen: Type.Integer(),
  total_yen: Type.Integer(),
  drop_off: Type.Object({ address: Type.String() }),
  memo: NullableString,
  status: Type.Union(nativeStatuses.map((s) => Type.Literal(s))),
  rider: Type.Union([Type.Object({ name: Type.String(), vehicle: Type.String() }), Type.Null()]),
  eta: NullableString,
  canceled_by: Type.Union([Type.Literal("customer"), Type.Literal("store"), Type.Null()]),
  ordered_at: Type.String(),
  updated_at: Type.String(),
  delivered_at: NullableString,
  canceled_at: NullableString,
  version: Revision,
});
export type NativeOrder = Static<typeof NativeOrder>;
const OrderAnswer = Type.Object({ order: NativeOrder });

export interface NativeMenuItem {
  item_code: string;
  name: string;
  name_en: string;
  description: string;
  price_yen: number;
  sold_out: boolean;
}

export interface NativeStore {
  store_id: string;
  name: string;
  name_en: string;
  genre: string;
  area: string;
  address: string;
  delivery_fee_yen: number;
  min_order_yen: number;
  prep_min: number;
  ride_min: number;
  open: boolean;
  menu: NativeMenuItem[];
}

export const nativeErrorMessage = (body: unknown): string | undefined => {
  const message = (body as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message : undefined;
};

const yen = (amount: number) => ({ amount, currency: "JPY" });
const utc = (iso: string) => new Date(Date.parse(iso)).toISOString();
const nullableUtc = (iso: string | null) => (iso === null ? null : utc(iso));

export const toMenu = (store: NativeStore) => ({
  restaurant: {
    id: store.store_id,
    name: store.name,
    name_en: store.name_en,
    cuisine: store.genre,
    area: store.area,
    address: store.address,
    open: store.open,
    delivery_fee: yen(store.delivery_fee_yen),
    minimum_order: yen(store.min_order_yen),
    estimated_delivery_minutes: store.prep_min + store.ride_min,
  },
  items: store.menu.map((item) => ({
    id: item.item_code,
    name: item.name,
    name_en: item.name_en,
    description: item.description,
    price: yen(item.price_yen),
    available: !item.sold_out,
  })),
});

const orderStatus = {
  RECEIVED: "placed",
  ACCEPTED: "accepted",
  COOKING: "preparing",
  READY: "ready_for_pickup",
  PICKED_UP: "picked_up",
  DELIVERED: "delivered",
  CANCELED: "cancelled",
} as const;

/** THE order mapping: create, get and cancel answers, the stored copy and order.updated events use it. */
export const toOrder = (native: NativeOrder, id: string) => ({
  id,
  status: orderStatus[native.status],
  restaurant_id: native.store_id,
  restaurant_name: native.store_name,
  items: native.lines.map((line) => ({
    item_id: line.item_code,
    name: line.name,
    quantity: line.qty,
    unit_price: yen(line.unit_price_yen),
    amount: yen(line.line_total_yen),
  })),
  subtotal: yen(native.subtotal_yen),
  delivery_fee: yen(native.delivery_fee_yen),
  total: yen(native.total_yen),
  delivery_address: native.drop_off.address,
  notes: native.memo,
  order_reference: native.order_no,
  courier: native.rider === null ? null : { name: native.rider.name, vehicle: native.rider.vehicle },
  estimated_delivery_at: nullableUtc(native.eta),
  cancelled_by:
    native.canceled_by === null
      ? null
      : native.canceled_by === "customer"
        ? ("caller" as const)
        : ("restaurant" as const),
  created_at: utc(native.ordered_at),
  updated_at: utc(native.updated_at),
  delivered_at: nullableUtc(native.delivered_at),
  cancelled_at: nullableUtc(native.canceled_at),
});

const at = (code: string) => encodeURIComponent(code);

export interface PlaceOrderBody {
  store_id: string;
  lines: { item_code: string; qty: number }[];
  drop_off: { address: string };
  memo?: string;
}

export const app = {
  stores: (ctx: OperationContext, query: NonNullable<UpstreamRequest["query"]>) =>
    ctx.upstream.request<{ stores: NativeStore[]; page_info: { page: number; total: number; total_pages: number } }>({
      path: "/v1/stores",
      query,
    }),
  place: (ctx: OperationContext, body: PlaceOrderBody) =>
    memberCall(ctx, { answer: OrderAnswer, method: "POST", path: "/v1/orders", body }),
  order: (ctx: OperationContext, orderNo: string) =>
    memberCall(ctx, { answer: OrderAnswer, path: `/v1/orders/${at(orderNo)}` }),
  cancel: (ctx: OperationContext, orderNo: string) =>
    memberCall(ctx, { answer: OrderAnswer, method: "POST", path: `/v1/orders/${at(orderNo)}/cancel` }),
};
