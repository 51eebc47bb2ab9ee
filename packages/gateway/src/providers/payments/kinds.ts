// The payments provider's stateful resource (providers/stateful): payments, the caller's one action on them (refund an
// approved payment), and the events of the issuer's answer.
import { defineStatefulResource } from "../stateful/resource.ts";
import { NativeCharge, network, toPayment } from "./adapter.ts";
import { Payment } from "./schemas.ts";

export const payments = defineStatefulResource({
  kind: "payment",
  native: NativeCharge,
  schema: Payment,
  idPrefix: "pay",
  upstreamId: (native: NativeCharge) => native.id,
  revision: (native: NativeCharge) => native.version,
  fetch: async (ctx, chargeId) => (await network.get(ctx, chargeId)).charge,
  toObject: toPayment,
  transitions: { pending: [], approved: ["refunded"], declined: [], refunded: [] },
  // There is no refund event type: a refund shows in get_payment and in refund_payment's answer.
  events: (before, after) =>
    before.status === after.status
      ? []
      : after.status === "approved"
        ? ["payment.approved"]
        : after.status === "declined"
          ? ["payment.declined"]
          : [],
});
