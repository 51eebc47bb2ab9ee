// Payment operations (a connected customer's card on file): create, get, refund. The gateway keeps a copy of each
// payment (kinds.ts), so an id of another account is 404 without asking the network; the issuer's answer arrives as
// a hook and becomes payment.approved or payment.declined.
import { Type } from "@sinclair/typebox";
import { notBlank, PatternString, StrictObject } from "../schemas.ts";
import { defineOperation } from "../types.ts";
import { network } from "./adapter.ts";
import { payments } from "./kinds.ts";
import { examplePayment, Payment, PaymentId } from "./schemas.ts";

const PaymentInput = StrictObject({ payment_id: PaymentId });
const exampleId = { payment_id: examplePayment.id };
const approvedAt = "2027-12-01T03:15:02.000Z";

export const createPayment = defineOperation({
  id: "create_payment",
  summary: "Charge the customer's card",
  description:
    "Charges the connected customer's card on file (status `pending`). The issuer answers shortly: `approved` (event " +
    "payment.approved) or `declined` (event payment.declined, with `decline_code`). Amounts are integer yen: a " +
    "fraction, zero, a negative amount or another currency is 400; over the network's limit (¥1,000,000) is 422 " +
    "provider_rejected. Send an Idempotency-Key to retry safely.",
  auth: "credentials",
  input: StrictObject({
    amount: Type.Integer({
      minimum: 1,
      maximum: 99_999_999,
      description: "Integer in the currency's display units (yen: JPY has no minor unit), at least 1.",
    }),
    // One string schema with an enum, so that another currency is one clear problem: `must be "JPY"`.
    currency: Type.Unsafe<"JPY">({ type: "string", enum: ["JPY"], description: "ISO 4217 code: JPY only." }),
    description: PatternString("\\S", notBlank, {
      maxLength: 200,
      description: "What the payment is for, shown on the customer's statement.",
    }),
  }),
  output: Payment,
  example: {
    input: { amount: examplePayment.amount, currency: "JPY", description: examplePayment.description },
    output: examplePayment,
  },
  async handle(input, ctx) {
    const { charge } = await network.charge(ctx, {
      amount: input.amount,
      currency: input.currency.toLowerCase(),
      description: input.description,
    });
    return { data: await payments.created(ctx, charge) };
  },
});

export const getPayment = defineOperation({
  id: "get_payment",
  summary: "Read a payment",
  description: "The payment as the network has it now.",
  auth: "credentials",
  readOnly: true,
  input: PaymentInput,
  output: Payment,
  example: {
    input: exampleId,
    output: { ...examplePayment, status: "approved" as const, updated_at: approvedAt, approved_at: approvedAt },
  },
  async handle(input, ctx) {
    const data = await payments.refresh(ctx, input.payment_id);
    return { data };
  },
});

export const refundPayment = defineOperation({
  id: "refund_payment",
  summary: "Refund a payment",
  description:
    "Refunds an approved payment in full (status `refunded`; no event). Refunding a payment that is pending, " +
    "declined or already refunded is 409 conflict: read it again with get_payment first.",
  auth: "credentials",
  input: PaymentInput,
  output: Payment,
  example: {
    input: exampleId,
    output: {
      ...examplePayment,
      status: "refunded" as const,
      updated_at: "2027-12-02T01:00:00.000Z",
      approved_at: approvedAt,
      refunded_at: "2027-12-02T01:00:00.000Z",
    },
  },
  async handle(input, ctx) {
    const data = await payments.transition(ctx, input.payment_id, "refunded", async (chargeId) => {
      return (await network.refund(ctx, chargeId)).charge;
    });
    return { data };
  },
});
