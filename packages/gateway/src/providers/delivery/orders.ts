// Order operations (a connected customer's account): create, get, cancel. The gateway keeps a copy of each order
// (kinds.ts), so an id of another account is 404 without asking the app; the kitchen's and the courier's progress
// arrives as hooks and becomes order.updated events.
import { Type } from "@sinclair/typebox";
import { notBlank, PatternString, StrictObject } from "../schemas.ts";
import { defineOperation } from "../types.ts";
import { app } from "./adapter.ts";
import { orders } from "./kinds.ts";
import { exampleOrder, Order, OrderId, RestaurantId } from "./schemas.ts";

const OrderInput = StrictObject({ order_id: OrderId });
const exampleId = { order_id: exampleOrder.id };

const Line = StrictObject({
  item_id: Type.String({ minLength: 1, maxLength: 64, description: "A menu item id from search_menus." }),
  quantity: Type.Integer({ minimum: 1, maximum: 20, description: "How many, 1 to 20." }),
});

export const createOrder = defineOperation({
  id: "create_order",
  summary: "Order food for delivery",
  description:
    "Places the order with the restaurant (status `placed`). The kitchen accepts and prepares it, a courier picks it " +
    "up and delivers it; every change is an order.updated event. A sold-out dish, a closed kitchen, an order under " +
    "the restaurant's minimum or an address outside Tokyo is 422 provider_rejected; an unknown restaurant or dish is " +
    "404. Send an Idempotency-Key to retry safely.",
  auth: "credentials",
  input: StrictObject({
    restaurant_id: RestaurantId,
    items: Type.Array(Line, { minItems: 1, maxItems: 20, description: "One line per dish, each dish once." }),
    delivery_address: PatternString("\\S", notBlank, {
      maxLength: 200,
      description: "Full address in Tokyo (personal data: never logged).",
    }),
    notes: Type.Optional(Type.String({ maxLength: 200, description: "For the kitchen and the courier." })),
  }),
  output: Order,
  example: {
    input: {
      restaurant_id: "kitchen_hayate",
      items: [
        { item_id: "item_hayate_shoyu", quantity: 2 },
        { item_id: "item_hayate_gyoza", quantity: 1 },
      ],
      delivery_address: exampleOrder.delivery_address,
      notes: exampleOrder.notes,
    },
    output: exampleOrder,
  },
  check({ items }) {
    if (!Array.isArray(items)) return [];
    const seen = new Set<string>();
    const repeated = items.flatMap((line: unknown, index) => {
      const itemId = typeof line === "object" && line !== null ? (line as { item_id?: unknown }).item_id : undefined;
      if (typeof itemId !== "string") return [];
      if (!seen.has(itemId)) {
        seen.add(itemId);
        return [];
      }
      return [{ path: `/items/${index}/item_id`, message: "is already ordered on another line" }];
    });
    if (repeated.length === 0) return [];
    return [{ message: "An order lists each dish once: add up the quantities on one line", problems: repeated }];
  },
  async handle(input, ctx) {
    const { order } = await app.place(ctx, {
      store_id: input.restaurant_id,
      lines: input.items.map((line) => ({ item_code: line.item_id, qty: line.quantity })),
      drop_off: { address: input.delivery_address },
      ...(input.notes !== undefined && { memo: input.notes }),
    });
    return { data: await orders.created(ctx, order) };
  },
});

export const getOrder = defineOperation({
  id: "get_order",
  summary: "Read an order",
  description: "The order as the restaurant and the courier have it now.",
  auth: "credentials",
  readOnly: true,
  input: OrderInput,
  output: Order,
  example: { input: exampleId, output: exampleOrder },
  async handle(input, ctx) {
    const data = await orders.refresh(ctx, input.order_id);
    return { data };
  },
});

export const cancelOrder = defineOperation({
  id: "cancel_order",
  summary: "Cancel an order",
  description:
    "Cancels an order the courier has not picked up yet (event order.updated). From `picked_up` on the app refuses: " +
    "422 provider_rejected, nothing changes. Cancelling a cancelled order is 409 conflict.",
  auth: "credentials",
  input: OrderInput,
  output: Order,
  example: {
    input: exampleId,
    output: {
      ...exampleOrder,
      status: "cancelled" as const,
      estimated_delivery_at: null,
      cancelled_by: "caller" as const,
      updated_at: "2027-12-01T03:16:00.000Z",
      cancelled_at: "2027-12-01T03:16:00.000Z",
    },
  },
  async handle(input, ctx) {
    const data = await orders.transition(ctx, input.order_id, "cancelled", async (orderNo) => {
      return (await app.cancel(ctx, orderNo)).order;
    });
    return { data };
  },
});
