// The delivery app's orders: RECEIVED → ACCEPTED → COOKING → READY (the kitchen) → PICKED_UP → DELIVERED (the
// courier), one step per tick, or CANCELED by the customer before pick-up or by the store before the food is ready.
// Every change raises `version` and is pushed as order.status_changed. Drop-off addresses are returned to their
// member only, never put in messages.
import { SandboxError } from "../shared/errors.ts";
import { newCode, type Pacer, withoutMember } from "../shared/pacer.ts";
import { type Store, storeById } from "./stores.ts";

export type OrderStatus = "RECEIVED" | "ACCEPTED" | "COOKING" | "READY" | "PICKED_UP" | "DELIVERED" | "CANCELED";

export interface Order {
  order_no: string;
  store_id: string;
  store_name: string;
  lines: { item_code: string; name: string; qty: number; unit_price_yen: number; line_total_yen: number }[];
  subtotal_yen: number;
  delivery_fee_yen: number;
  total_yen: number;
  drop_off: { address: string };
  memo: string | null;
  status: OrderStatus;
  rider: { name: string; vehicle: "bicycle" | "scooter" } | null;
  /** Expected hand-over; null once delivered or canceled. */
  eta: string | null;
  canceled_by: "customer" | "store" | null;
  ordered_at: string;
  updated_at: string;
  delivered_at: string | null;
  canceled_at: string | null;
  version: number;
}

/** A refusal in the app's own terms: `code` goes into its error body. */
export class DeliveryError extends SandboxError {
  constructor(
    status: number,
    readonly code: string,
    message: string,
  ) {
    super(status, status === 404 ? "not_found" : "bad_request", message);
  }
}

export interface KitchenOptions {
  now: () => number;
  pacer: Pacer;
  push: (key: string, type: string, payload: Record<string, unknown>) => void;
}

const steps: Partial<Record<OrderStatus, OrderStatus>> = {
  RECEIVED: "ACCEPTED",
  ACCEPTED: "COOKING",
  COOKING: "READY",
  READY: "PICKED_UP",
  PICKED_UP: "DELIVERED",
};
const riders = [
  { name: "田中 健太", vehicle: "bicycle" as const },
  { name: "高橋 美咲", vehicle: "scooter" as const },
  { name: "伊藤 翔", vehicle: "bicycle" as const },
  { name: "渡辺 葵", vehicle: "scooter" as const },
];
const iso = (ms: number) => new Date(ms).toISOString();
const minutes = (n: number) => n * 60_000;

export function storeOf(storeId: string): Store {
  const store = storeById.get(storeId);
  if (!store) throw new DeliveryError(404, "STORE_NOT_FOUND", `No store ${storeId}`);
  return store;
}

export interface PlaceOrder {
  lines: { item_code: string; qty: number }[];
  drop_off: { address: string };
  memo?: string | undefined;
}

export class Kitchen {
  private readonly orders = new Map<string, Order & { member: string }>();
  private riderTurn = 0;

  constructor(private readonly options: KitchenOptions) {}

  place(member: string, storeId: string, input: PlaceOrder): Order {
    const store = storeOf(storeId);
    if (!store.open) throw new DeliveryError(422, "STORE_CLOSED", `${store.name} is not taking orders now`);
    const lines = input.lines.map(({ item_code, qty }) => {
      const item = store.menu.find((m) => m.item_code === item_code);
      if (!item) throw new DeliveryError(404, "ITEM_NOT_FOUND", `No item ${item_code} at ${storeId}`);
      if (item.sold_out) throw new DeliveryError(422, "SOLD_OUT", `${item.name} (${item_code}) is sold out`);
      const line = { item_code, name: item.name, qty, unit_price_yen: item.price_yen };
      return { ...line, line_total_yen: item.price_yen * qty };
    });
    const subtotal = lines.reduce((sum, line) => sum + line.line_total_yen, 0);
    if (subtotal < store.min_order_yen) {
      throw new DeliveryError(
        422,
        "BELOW_MINIMUM",
        `${store.name} delivers orders of at least ¥${store.min_order_yen} (this one is ¥${subtotal})`,
      );
    }
    if (!input.drop_off.address.includes("東京都")) {
      throw new DeliveryError(422, "OUT_OF_AREA", `${store.name} delivers within Tokyo (東京都) only`);
    }
    const now = this.options.now();
    const order = {
      member,
      order_no: newCode("MP-"),
      store_id: store.store_id,
      store_name: store.name,
      lines,
      subtotal_yen: subtotal,
      delivery_fee_yen: store.delivery_fee_yen,
      total_yen: subtotal + store.delivery_fee_yen,
      drop_off: { address: input.drop_off.address },
      memo: input.memo ?? null,
      status: "RECEIVED" as const,
      rider: null,
      eta: iso(now + minutes(store.prep_min + store.ride_min)),
      canceled_by: null,
      ordered_at: iso(now),
      updated_at: iso(now),
      delivered_at: null,
      canceled_at: null,
      version: 1,
    };
    this.orders.set(order.order_no, order);
    this.options.pacer.next(order.order_no, () => this.advance(order.order_no));
    return withoutMember(order);
  }

  /** The member's order (another member's is not found, as the app answers). */
  order(member: string, orderNo: string): Order {
    const order = this.orders.get(orderNo);
    if (!order || order.member !== member) throw new DeliveryError(404, "ORDER_NOT_FOUND", `No order ${orderNo}`);
    return withoutMember(order);
  }

  cancelByCustomer(member: string, orderNo: string): Order {
    const order = this.order(member, orderNo);
    if (order.status === "CANCELED") throw new DeliveryError(409, "ALREADY_CANCELED", `${orderNo} is canceled`);
    if (order.status === "PICKED_UP" || order.status === "DELIVERED") {
      const state = order.status === "PICKED_UP" ? "is on its way" : "was delivered";
      throw new DeliveryError(422, "CANCEL_NOT_ALLOWED", `${orderNo} ${state}: it can no longer be canceled`);
    }
    return this.cancel(orderNo, "customer");
  }

  /** The kitchen's and the courier's next step (the pacer, and POST /_sandbox/kitchen/advance). */
  advance(orderNo: string): Order {
    const order = this.known(orderNo);
    const to = steps[order.status];
    if (!to) throw new DeliveryError(409, "INVALID_STATE", `Cannot advance ${orderNo}: it is ${order.status}`);
    const now = this.options.now();
    const store = storeOf(order.store_id);
    const change: Partial<Order> = { status: to };
    if (to === "READY") change.rider = riders[this.riderTurn++ % riders.length] ?? null;
    if (to === "PICKED_UP") change.eta = iso(now + minutes(store.ride_min));
    if (to === "DELIVERED") Object.assign(change, { eta: null, delivered_at: iso(now) });
    const view = this.change(orderNo, change, now);
    if (steps[to]) this.options.pacer.next(orderNo, () => this.advance(orderNo));
    return view;
  }

  /** The store turns the order down (POST /_sandbox/kitchen/reject): only before the food is ready. */
  rejectByStore(orderNo: string): Order {
    const order = this.known(orderNo);
    if (!["RECEIVED", "ACCEPTED", "COOKING"].includes(order.status)) {
      throw new DeliveryError(409, "INVALID_STATE", `Cannot reject ${orderNo}: it is ${order.status}`);
    }
    return this.cancel(orderNo, "store");
  }

  private cancel(orderNo: string, by: "customer" | "store"): Order {
    this.options.pacer.cancel(orderNo);
    const now = this.options.now();
    return this.change(orderNo, { status: "CANCELED", canceled_by: by, canceled_at: iso(now), eta: null }, now);
  }

  private known(orderNo: string) {
    const order = this.orders.get(orderNo);
    if (!order) throw new DeliveryError(404, "ORDER_NOT_FOUND", `No order ${orderNo}`);
    return order;
  }

  /** Applies a change made at `at` (ms), the one time of the change: its own timestamps carry the same value. */
  private change(orderNo: string, change: Partial<Order>, at = this.options.now()): Order {
    const order = this.known(orderNo);
    Object.assign(order, change, { updated_at: iso(at), version: order.version + 1 });
    const view = withoutMember(order);
    this.options.push(orderNo, "order.status_changed", { order: view });
    return view;
  }
}
