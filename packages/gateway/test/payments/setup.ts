// Test setup for the payments provider: a payments sandbox of the test file's own whose issuer answers only when the
// test says so (tick null) unless a test sets a pace, on the shared stateful-provider setup.
import { createPaymentsSandbox } from "@provider-gateway/sandbox";
import { expect } from "vitest";
import type { TestGatewayOptions } from "../harness.ts";
import {
  callOperation,
  type ProviderSetup,
  sandboxControl,
  startStatefulProvider,
} from "../stateful/provider-setup.ts";

export async function startPayments(options: { gateway?: Omit<TestGatewayOptions, "env"> } = {}) {
  return startStatefulProvider({
    providerId: "payments",
    ...(options.gateway && { gateway: options.gateway }),
    async sandbox(hooks) {
      const sandbox = createPaymentsSandbox({ hooks, tickMs: null });
      const url = await sandbox.app.listen({ host: "127.0.0.1", port: 0 });
      return { url, close: () => sandbox.app.close() };
    },
  });
}

export async function pay(s: ProviderSetup, amount: number, description = "ほうじ茶ラテ 2点") {
  const created = await callOperation(s, "create_payment", { amount, currency: "JPY", description });
  expect(created.status, created.text).toBe(200);
  return created.body.data;
}

export async function getPayment(s: ProviderSetup, id: string) {
  const read = await callOperation(s, "get_payment", { payment_id: id });
  expect(read.status, read.text).toBe(200);
  return read.body.data;
}

/** The issuer answers now (/_sandbox/network/settle with the network's charge id), by the documented rule. */
export const settle = async (s: ProviderSetup, payment: { payment_reference: string }) =>
  (await sandboxControl(s, "network/settle", { charge_id: payment.payment_reference })).charge;

/** The issuer's pace: milliseconds until a charge settles, or null (only the settle control). */
export const pace = (s: ProviderSetup, tickMs: number | null) =>
  sandboxControl(s, "network/settings", { tick_ms: tickMs });
