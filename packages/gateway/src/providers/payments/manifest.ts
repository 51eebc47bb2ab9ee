// The payments provider over the "さくらペイ" merchant API: a connected customer's card on file is charged and
// refunded. The issuer's answer arrives as a hook (charge.updated) and becomes payment.approved or payment.declined.
import { defineProvider } from "../types.ts";
import { nativeErrorMessage } from "./adapter.ts";
import { payments } from "./kinds.ts";
import { createPayment, getPayment, refundPayment } from "./payments.ts";

export const paymentsProvider = defineProvider({
  id: "payments",
  title: "Sakura Pay",
  description: "Card payments in JPY through the さくらペイ network: charge a connected customer's card, refund it.",
  sandbox: "payments",
  upstreamErrorMessage: nativeErrorMessage,
  oauth: { scopes: ["charges", "refunds"] },
  operations: [createPayment, getPayment, refundPayment],
  async handleHook(event, ctx) {
    if (event.type !== "charge.updated") return {}; // acknowledged, so that the network does not retry it
    return payments.fromHook(ctx, event.data.charge);
  },
});
