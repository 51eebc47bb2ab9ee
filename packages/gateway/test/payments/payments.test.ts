// The payment state machine over real HTTP, every transition including the refused ones: pending → approved
// (payment.approved) → refunded, pending → declined (payment.declined, an amount ending in 13), each event verified
// with the SDK and its data.object equal to get_payment then; the issuer's answer paced by the sandbox's tick;
// refunding a pending, declined or refunded payment is 409 and changes nothing; a refund whose hook arrives before
// the approval's still announces the approval; under an Idempotency-Key, a takeover of a stopped node's request
// charges the card once, also when the first run sent the charge again after the network refused its token, and a
// takeover of a refund whose copy already shows it answers the refund.
import { signHook } from "@provider-gateway/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { idempotencyKeyHash } from "../../src/core/idempotency/key.ts";
import {
  callOperation,
  delivered,
  deliveredTypes,
  type ProviderSetup,
  receivedAbout,
  sandboxControl,
} from "../stateful/provider-setup.ts";
import { getPayment, pace, pay, settle, startPayments } from "./setup.ts";

let s: ProviderSetup;
beforeAll(async () => {
  s = await startPayments();
});
afterAll(async () => s?.close());

const refund = (id: string) => callOperation(s, "refund_payment", { payment_id: id });

async function refusedRefund(payment: { id: string }, status: string) {
  const before = await getPayment(s, payment.id);
  const refused = await refund(payment.id);
  expect(refused.status).toBe(409);
  expect(refused.body.error).toEqual({
    code: "conflict",
    message: `The payment ${payment.id} is ${status}: it cannot become refunded`,
    request_id: refused.headers.get("x-request-id"),
    retryable: false,
    details: { reason: "illegal_transition", status, requested: "refunded" },
    fix: "Read the payment again and act on its current status.",
  });
  expect(await getPayment(s, payment.id)).toEqual(before);
}

describe("approved, then refunded", () => {
  it("answers pending with the amount in integer JPY and the card on file, in the envelope", async () => {
    const created = await callOperation(s, "create_payment", {
      amount: 4800,
      currency: "JPY",
      description: "注文 #1024",
    });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toEqual({
      data: created.body.data,
      meta: { source: "payments", fetched_at: expect.any(String) },
      pagination: null,
    });
    const payment = created.body.data;
    expect(payment).toEqual({
      id: expect.stringMatching(/^pay_[0-9A-Za-z]{22}$/),
      status: "pending",
      amount: 4800,
      currency: "JPY",
      description: "注文 #1024",
      payment_method: { type: "card", brand: "visa", last4: "4242" },
      decline_code: null,
      decline_message: null,
      payment_reference: expect.stringMatching(/^ch_[0-9a-f]{24}$/),
      created_at: expect.stringMatching(/\.000Z$/),
      updated_at: payment.created_at,
      approved_at: null,
      declined_at: null,
      refunded_at: null,
    });
    expect(await getPayment(s, payment.id)).toEqual(payment);
    expect(deliveredTypes(s, payment.id)).toEqual([]);
  });

  it("the issuer approves: payment.approved with the object get_payment answers; the refund is refunded, no event", async () => {
    const payment = await pay(s, 4800);
    await refusedRefund(payment, "pending");
    const native = await settle(s, payment);
    expect(native.status).toBe("succeeded");
    const event = await delivered(s, "payment.approved", payment.id);
    expect(event.data.object).toMatchObject({
      status: "approved",
      approved_at: expect.any(String),
      decline_code: null,
    });
    expect(event.data.object).toEqual(await getPayment(s, payment.id));

    const refunded = await refund(payment.id);
    expect(refunded.status, refunded.text).toBe(200);
    expect(refunded.body.data).toMatchObject({
      status: "refunded",
      amount: 4800,
      approved_at: event.data.object.approved_at,
      refunded_at: expect.any(String),
    });
    expect(await getPayment(s, payment.id)).toEqual(refunded.body.data);
    await refusedRefund(payment, "refunded");
    expect(deliveredTypes(s, payment.id)).toEqual(["payment.approved"]);
  });
});

describe("the network's hooks out of order", () => {
  it("a refund seen before the approval still announces payment.approved, once; the late approval adds nothing", async () => {
    const payment = await pay(s, 3600);
    const created = Date.parse(payment.created_at) / 1000;
    const charge = (status: string, version: number, refunded: boolean) => ({
      id: payment.payment_reference,
      object: "charge",
      amount: payment.amount,
      currency: "jpy",
      description: payment.description,
      status,
      failure_code: null,
      failure_message: null,
      card: { brand: payment.payment_method.brand, last4: payment.payment_method.last4 },
      created,
      status_transitions: { succeeded_at: created + 1, failed_at: null, refunded_at: refunded ? created + 2 : null },
      version,
    });
    const push = async (id: string, native: object) => {
      const body = JSON.stringify({ id, type: "charge.updated", data: { charge: native } });
      const response = await fetch(`${s.t.url}/hooks/payments`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "gateway-signature": signHook(body, "whsec_paymentsSandboxHookSecretForTests01"),
        },
        body,
      });
      expect(response.status, await response.text()).toBe(200);
    };
    await push(`hk_refunded_${payment.id}`, charge("refunded", 3, true));
    const event = await delivered(s, "payment.approved", payment.id);
    expect(event.data.object).toMatchObject({
      status: "refunded",
      approved_at: new Date((created + 1) * 1000).toISOString(),
    });
    await push(`hk_approved_${payment.id}`, charge("succeeded", 2, false));
    expect((await callOperation(s, "get_payment", { payment_id: payment.id })).body.data).toMatchObject({
      status: "refunded",
    });
    expect(deliveredTypes(s, payment.id)).toEqual(["payment.approved"]);
  });
});

describe("declined", () => {
  it("an amount ending in 13 is declined: payment.declined with the reason, and it cannot be refunded", async () => {
    const payment = await pay(s, 1013);
    await settle(s, payment);
    const event = await delivered(s, "payment.declined", payment.id);
    expect(event.data.object).toMatchObject({
      status: "declined",
      amount: 1013,
      decline_code: "insufficient_funds",
      decline_message: expect.stringContaining("insufficient funds"),
      approved_at: null,
      declined_at: expect.any(String),
    });
    expect(event.data.object).toEqual(await getPayment(s, payment.id));
    await refusedRefund(payment, "declined");
    expect(deliveredTypes(s, payment.id)).toEqual(["payment.declined"]);
  });
});

describe("paced by the sandbox's tick", () => {
  it("the issuer answers by itself: one approved, one declined, one event each", async () => {
    await pace(s, 30);
    try {
      const approved = await pay(s, 2500);
      const declined = await pay(s, 313);
      const approvedEvent = await delivered(s, "payment.approved", approved.id);
      const declinedEvent = await delivered(s, "payment.declined", declined.id);
      expect(approvedEvent.data.object).toEqual(await getPayment(s, approved.id));
      expect(declinedEvent.data.object).toEqual(await getPayment(s, declined.id));
      expect(receivedAbout(s, approved.id).map((e) => e.type)).toEqual(["payment.approved"]);
      expect(receivedAbout(s, declined.id).map((e) => e.type)).toEqual(["payment.declined"]);
    } finally {
      await pace(s, null);
    }
  });
});

describe("under an Idempotency-Key", () => {
  /** The key's record as a node leaves it that acted and then stopped before storing its answer: running, lapsed. */
  async function leaveAsStoppedRun(key: string) {
    const stopped = await s.t.gateway.core.store.db
      .updateTable("idempotency_keys")
      .set({ state: "running", lease_until: 0, status: null, content_type: null, body: null })
      .where("key_hash", "=", idempotencyKeyHash(key))
      .executeTakeFirst();
    expect(Number(stopped.numUpdatedRows)).toBe(1);
  }

  it("a takeover after a node stopped mid-request charges once: the network replays the first charge", async () => {
    const key = `pay-${crypto.randomUUID()}`;
    const body = { amount: 1200, currency: "JPY", description: "抹茶ラテ" };
    const first = await callOperation(s, "create_payment", body, { headers: { "idempotency-key": key } });
    expect(first.status, first.text).toBe(200);
    await leaveAsStoppedRun(key);

    const takeover = await callOperation(s, "create_payment", body, { headers: { "idempotency-key": key } });
    expect(takeover.status, takeover.text).toBe(200);
    expect(takeover.headers.get("idempotent-replayed")).toBeNull();
    // The same charge at the network, so the same payment: not a second charge of the card.
    expect(takeover.body.data).toEqual(first.body.data);

    // Another key is another charge.
    const other = await callOperation(s, "create_payment", body, { headers: { "idempotency-key": `${key}-2` } });
    expect(other.status, other.text).toBe(200);
    expect(other.body.data.payment_reference).not.toBe(first.body.data.payment_reference);
    expect(other.body.data.id).not.toBe(first.body.data.id);
  });

  it("a charge retried after a refused token carries the key a takeover sends first: still one charge", async () => {
    const key = `pay-${crypto.randomUUID()}`;
    const body = { amount: 1300, currency: "JPY", description: "抹茶ラテ" };
    // The network refuses the token (401): the gateway refreshes it and sends the charge again, which runs it.
    await sandboxControl(s, "oauth/expire-access-tokens", {});
    const first = await callOperation(s, "create_payment", body, { headers: { "idempotency-key": key } });
    expect(first.status, first.text).toBe(200);
    await leaveAsStoppedRun(key);

    // The takeover's token is the fresh one: its first call is the charge, under the key the charge ran with.
    const takeover = await callOperation(s, "create_payment", body, { headers: { "idempotency-key": key } });
    expect(takeover.status, takeover.text).toBe(200);
    expect(takeover.body.data).toEqual(first.body.data);
  });

  it("a takeover of a refund its copy already shows (the network's hook came) answers the refund, made once", async () => {
    const payment = await pay(s, 1400);
    await settle(s, payment);
    await delivered(s, "payment.approved", payment.id);
    const key = `refund-${crypto.randomUUID()}`;
    const headers = { "idempotency-key": key };
    const first = await callOperation(s, "refund_payment", { payment_id: payment.id }, { headers });
    expect(first.status, first.text).toBe(200);
    await leaveAsStoppedRun(key);

    const takeover = await callOperation(s, "refund_payment", { payment_id: payment.id }, { headers });
    expect(takeover.status, takeover.text).toBe(200);
    expect(takeover.body.data).toEqual(first.body.data);
    // Under another key, the refunded payment is refused as before.
    await refusedRefund(payment, "refunded");
  });
});
