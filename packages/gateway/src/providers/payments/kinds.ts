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
  // By the issuer's timestamps rather than the status alone, as dining's by confirmed_at: a payment whose refund the
  // gateway sees before the approval (hooks out of order, a refund through another connection) was still approved.
  // There is no refund event type: a refund shows in get_payment and in refund_payment's answer.
  events: (before, after) => [
    ...(before.approved_at === null && after.approved_at !== null ? ["payment.approved"] : []),
    ...(before.declined_at === null && after.declined_at !== null ? ["payment.declined"] : []),
  ],
});
