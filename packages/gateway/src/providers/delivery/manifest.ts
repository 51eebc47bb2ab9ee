// The delivery provider (food delivery) over the "まんぷく便" partner API: menus with the API key alone, orders for a
// connected customer. The kitchen's and the courier's progress arrives as hooks (order.status_changed) and becomes
// order.updated events.
import { defineProvider } from "../types.ts";
import { nativeErrorMessage } from "./adapter.ts";
import { orders } from "./kinds.ts";
import { cancelOrder, createOrder, getOrder } from "./orders.ts";
import { searchMenus } from "./search.ts";

export const deliveryProvider = defineProvider({
  id: "delivery",
  title: "Manpuku Delivery",
  description:
    "Food delivery from Tokyo restaurants of the まんぷく便 app: menus, orders tracked from kitchen to door.",
  sandbox: "delivery",
  upstreamErrorMessage: nativeErrorMessage,
  oauth: { scopes: ["orders"] },
  operations: [searchMenus, createOrder, getOrder, cancelOrder],
  async handleHook(event, ctx) {
    if (event.type !== "order.status_changed") return {}; // acknowledged, so that the app does not retry it
    return orders.fromHook(ctx, event.data.order);
  },
});
