// Test setup for the delivery provider: a delivery sandbox of the test file's own whose kitchen and courier move only
// when the test says so (tick null) unless a test sets a pace, on the shared stateful-provider setup.
import { createDeliverySandbox } from "@provider-gateway/sandbox";
import { expect } from "vitest";
import type { TestGatewayOptions } from "../harness.ts";
import {
  callOperation,
  type ProviderSetup,
  sandboxControl,
  startStatefulProvider,
} from "../stateful/provider-setup.ts";

export async function startDelivery(options: { gateway?: Omit<TestGatewayOptions, "env"> } = {}) {
  return startStatefulProvider({
    providerId: "delivery",
    ...(options.gateway && { gateway: options.gateway }),
    async sandbox(hooks) {
      const sandbox = createDeliverySandbox({ hooks, tickMs: null });
      const url = await sandbox.app.listen({ host: "127.0.0.1", port: 0 });
      return { url, close: () => sandbox.app.close() };
    },
  });
}

export const address = "東京都新宿区西新宿2-8-1 都庁前レジデンス 801号室";

/** An order input at kitchen_hayate: two shoyu ramen and a gyoza (¥2,350 + ¥350 delivery). */
export const orderInput = (extra: Record<string, unknown> = {}) => ({
  restaurant_id: "kitchen_hayate",
  items: [
    { item_id: "item_hayate_shoyu", quantity: 2 },
    { item_id: "item_hayate_gyoza", quantity: 1 },
  ],
  delivery_address: address,
  ...extra,
});

export async function placeOrder(s: ProviderSetup, extra: Record<string, unknown> = {}) {
  const created = await callOperation(s, "create_order", orderInput(extra));
  expect(created.status, created.text).toBe(200);
  return created.body.data;
}

export async function getOrder(s: ProviderSetup, id: string) {
  const read = await callOperation(s, "get_order", { order_id: id });
  expect(read.status, read.text).toBe(200);
  return read.body.data;
}

/** What the kitchen and the courier do (/_sandbox/kitchen/{action} with the app's order number): advance, reject. */
export const kitchen = async (s: ProviderSetup, action: "advance" | "reject", order: { order_reference: string }) =>
  (await sandboxControl(s, `kitchen/${action}`, { order_no: order.order_reference })).order;

/** The kitchen's pace: milliseconds per step, or null (only the advance control moves orders). */
export const pace = (s: ProviderSetup, tickMs: number | null) =>
  sandboxControl(s, "kitchen/settings", { tick_ms: tickMs });
