// The payments provider's API object and input fields: a payment of integer yen (as Money: `amount` in the
// currency's display units, `currency` "JPY") with the card it was charged to, why it was declined, timestamps in UTC.
import { Type } from "@sinclair/typebox";
import { Nullable } from "../schemas.ts";

const Utc = (description: string) => Type.String({ format: "date-time", description: `${description} (UTC).` });

/** Resource ids are matched exactly: anything not issued to the caller's account is 404, malformed or not. */
export const PaymentId = Type.String({
  minLength: 1,
  maxLength: 64,
  description: "The payment id create_payment returned.",
});

export const paymentStatuses = ["pending", "approved", "declined", "refunded"] as const;

export const Payment = Type.Object(
  {
    id: Type.String({ description: "`pay_` + 22 characters." }),
    status: Type.Union(
      paymentStatuses.map((s) => Type.Literal(s)),
      { description: "pending → approved (payment.approved) or declined (payment.declined); approved → refunded." },
    ),
    amount: Type.Integer({
      minimum: 1,
      description: "Integer in the currency's display units. JPY has no minor unit.",
    }),
    currency: Type.Literal("JPY", { description: "ISO 4217 code: the network charges in yen only." }),
    description: Type.String(),
    payment_method: Type.Object(
      { type: Type.Literal("card"), brand: Type.String({ description: "visa, jcb, …" }), last4: Type.String() },
      { additionalProperties: false, description: "The connected customer's card on file." },
    ),
    decline_code: Nullable(Type.String({ description: "Why the issuer declined, e.g. insufficient_funds." })),
    decline_message: Nullable(Type.String()),
    payment_reference: Type.String({ description: "The network's own charge id." }),
    created_at: Utc("When it was created"),
    updated_at: Utc("Last change"),
    approved_at: Nullable(Utc("When the issuer approved it")),
    declined_at: Nullable(Utc("When the issuer declined it")),
    refunded_at: Nullable(Utc("When it was refunded")),
  },
  { additionalProperties: false },
);

export const examplePayment = {
  id: "pay_9Xc4Lm2Qz7Rt1Vb8Hk5Nw3",
  status: "pending" as const,
  amount: 4800,
  currency: "JPY" as const,
  description: "注文 #1024 (ほうじ茶ラテ 2点)",
  payment_method: { type: "card" as const, brand: "visa", last4: "4242" },
  decline_code: null,
  decline_message: null,
  payment_reference: "ch_3f9a1c07b2d84e6f5a0c1d29",
  created_at: "2027-12-01T03:15:00.000Z",
  updated_at: "2027-12-01T03:15:00.000Z",
  approved_at: null,
  declined_at: null,
  refunded_at: null,
};
