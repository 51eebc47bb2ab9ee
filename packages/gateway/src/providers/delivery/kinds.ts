// The delivery provider's stateful resource (providers/stateful): orders, the caller's one action on them (cancel),
// and the event every change causes.
import { isDeepStrictEqual } from "node:util";
import { defineStatefulResource } from "../stateful/resource.ts";
import { app, NativeOrder, toOrder } from "./adapter.ts";
import { Order } from "./schemas.ts";

export const orders = defineStatefulResource({
  kind: "order",
  native: NativeOrder,
  schema: Order,
  idPrefix: "ord",
  upstreamId: (native: NativeOrder) => native.order_no,
  revision: (native: NativeOrder) => native.version,
  fetch: async (ctx, orderNo) => (await app.order(ctx, orderNo)).order,
  toObject: toOrder,
  // Every live order is handed to the app: it refuses from picked_up on (422, its policy), not the gateway.
  transitions: {
    placed: ["cancelled"],
    accepted: ["cancelled"],
    preparing: ["cancelled"],
    ready_for_pickup: ["cancelled"],
    picked_up: ["cancelled"],
    delivered: ["cancelled"],
    cancelled: [],
  },
  events: (before, after) => (isDeepStrictEqual(before, after) ? [] : ["order.updated"]),
});
