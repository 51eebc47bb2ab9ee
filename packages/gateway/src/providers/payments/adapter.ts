// Calls to the payment network's merchant API ("さくらペイ" v1: charges and their refunds) and the one mapping of its
// charge onto the API's payment. The network speaks lower-case currencies and unix seconds; every call carries the
// connection's bearer token.
import { type Static, Type } from "@sinclair/typebox";
import { memberCall } from "../member-call.ts";
import { Revision } from "../schemas.ts";
import type { OperationContext } from "../types.ts";

const NullableSeconds = Type.Union([Type.Integer(), Type.Null()]);
const NullableString = Type.Union([Type.String(), Type.Null()]);

/** The network's charge as it answers it and pushes it in `charge.updated` hooks. */
export const NativeCharge = Type.Object({
  id: Type.String({ minLength: 1 }),
  object: Type.Literal("charge"),
  amount: Type.Integer(),
  currency: Type.String(),
  description: Type.String(),
  status: Type.Union(["processing", "succeeded", "failed", "refunded"].map((s) => Type.Literal(s))),
  failure_code: NullableString,
  failure_message: NullableString,
  card: Type.Object({ brand: Type.String(), last4: Type.String() }),
  created: Type.Integer(),
  status_transitions: Type.Object({
    succeeded_at: NullableSeconds,
    failed_at: NullableSeconds,
    refunded_at: NullableSeconds,
  }),
  version: Revision,
});
export type NativeCharge = Static<typeof NativeCharge>;
const ChargeAnswer = Type.Object({ charge: NativeCharge });

export const nativeErrorMessage = (body: unknown): string | undefined => {
  const message = (body as { error?: { message?: unknown } } | null)?.error?.message;
  return typeof message === "string" ? message : undefined;
};

const paymentStatus = {
  processing: "pending",
  succeeded: "approved",
  failed: "declined",
  refunded: "refunded",
} as const;

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
const nullableIso = (seconds: number | null) => (seconds === null ? null : iso(seconds));

/** THE payment mapping: create, get and refund answers, the stored copy and payment.* events use it. */
export function toPayment(native: NativeCharge, id: string) {
  const { succeeded_at, failed_at, refunded_at } = native.status_transitions;
  return {
    id,
    status: paymentStatus[native.status as keyof typeof paymentStatus],
    amount: native.amount,
    // "JPY" when the network keeps to its API; anything else is refused by the Payment schema before it is kept.
    currency: native.currency.toUpperCase() as "JPY",
    description: native.description,
    payment_method: { type: "card" as const, brand: native.card.brand, last4: native.card.last4 },
    decline_code: native.failure_code,
    decline_message: native.failure_message,
    payment_reference: native.id,
    created_at: iso(native.created),
    updated_at: iso(Math.max(native.created, succeeded_at ?? 0, failed_at ?? 0, refunded_at ?? 0)),
    approved_at: nullableIso(succeeded_at),
    declined_at: nullableIso(failed_at),
    refunded_at: nullableIso(refunded_at),
  };
}

const at = (id: string) => encodeURIComponent(id);

export const network = {
  charge: (ctx: OperationContext, body: { amount: number; currency: string; description: string }) =>
    memberCall(ctx, { answer: ChargeAnswer, method: "POST", path: "/v1/charges", body }),
  get: (ctx: OperationContext, chargeId: string) =>
    memberCall(ctx, { answer: ChargeAnswer, path: `/v1/charges/${at(chargeId)}` }),
  refund: (ctx: OperationContext, chargeId: string) =>
    memberCall(ctx, { answer: ChargeAnswer, method: "POST", path: `/v1/charges/${at(chargeId)}/refund` }),
};
