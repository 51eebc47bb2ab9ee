// Everything create_payment, get_payment and refund_payment must refuse without changing anything: fractional, zero
// and negative amounts, other currencies, wrong types, unknown fields, the network's limit, unknown ids, another
// account's and another customer's payments; Idempotency-Key replays charge once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callOperation, connectUser, copies, otherAccount, type ProviderSetup } from "../stateful/provider-setup.ts";
import { getPayment, pay, startPayments } from "./setup.ts";

let s: ProviderSetup;
beforeAll(async () => {
  s = await startPayments();
});
afterAll(async () => s?.close());

const valid = { amount: 1200, currency: "JPY", description: "抹茶パフェ" };

describe("bad input changes nothing", () => {
  it("refuses fractional, zero and negative amounts, other currencies, wrong types and unknown fields with 400", async () => {
    const before = (await copies(s)).length;
    const cases: [Record<string, unknown>, { path: string; message: string }[]][] = [
      [{ ...valid, amount: 12.5 }, [{ path: "/amount", message: "must be integer" }]],
      [{ ...valid, amount: 0 }, [{ path: "/amount", message: "must be >= 1" }]],
      [{ ...valid, amount: -500 }, [{ path: "/amount", message: "must be >= 1" }]],
      [{ ...valid, amount: "1200" }, [{ path: "/amount", message: "must be integer" }]],
      [{ ...valid, currency: "USD" }, [{ path: "/currency", message: 'must be "JPY"' }]],
      [{ ...valid, currency: "jpy" }, [{ path: "/currency", message: 'must be "JPY"' }]],
      [{ ...valid, amount: { amount: 1200, currency: "JPY" } }, [{ path: "/amount", message: "must be integer" }]],
      [
        { ...valid, description: "  " },
        [{ path: "/description", message: "must contain something other than spaces" }],
      ],
      [{ ...valid, capture: false }, [{ path: "/capture", message: "is not an allowed property" }]],
      [
        { amount: 1200 },
        [
          { path: "/currency", message: "is required" },
          { path: "/description", message: "is required" },
        ],
      ],
    ];
    for (const [input, details] of cases) {
      const refused = await callOperation(s, "create_payment", input);
      expect(refused.status, JSON.stringify(input)).toBe(400);
      expect(refused.body.error).toMatchObject({ code: "invalid_request", retryable: false, details });
      expect(refused.body.error.message).toBe("The input of payments:create_payment is invalid");
      expect(refused.body.error.provider).toBeUndefined();
    }
    const overLimit = await callOperation(s, "create_payment", { ...valid, amount: 1_500_000 });
    expect(overLimit.status).toBe(422);
    expect(overLimit.body.error).toMatchObject({
      code: "provider_rejected",
      provider: "payments",
      retryable: false,
      message: expect.stringContaining("at most ¥1,000,000 (this one is ¥1,500,000)"),
    });
    expect((await copies(s)).length).toBe(before);
  });

  it("unknown and another account's ids are 404 without asking the network; another customer's is 404 from it", async () => {
    const mine = await pay(s, 3300);
    const other = await otherAccount(s);
    for (const id of [mine.id, "pay_0000000000000000000000", mine.payment_reference]) {
      for (const operation of ["get_payment", "refund_payment"]) {
        const refused = await callOperation(s, operation, { payment_id: id }, other);
        expect(refused.status).toBe(404);
        expect(refused.body.error).toEqual({
          code: "not_found",
          message: `There is no payment ${id}`,
          request_id: refused.headers.get("x-request-id"),
          retryable: false,
        });
      }
    }
    const secondCustomer = await connectUser(s.t, "payments", "user_2", "demo2");
    const theirs = await callOperation(s, "get_payment", { payment_id: mine.id }, { connectionId: secondCustomer });
    expect(theirs.status).toBe(404);
    expect(theirs.body.error).toMatchObject({ code: "not_found", provider: "payments" });
    const own = await callOperation(s, "create_payment", valid, { connectionId: secondCustomer });
    expect(own.body.data.payment_method).toEqual({ type: "card", brand: "jcb", last4: "0005" });
    expect(await getPayment(s, mine.id)).toEqual(mine);
  });

  it("replays an Idempotency-Key byte for byte and charges once; the same key for another amount is 409", async () => {
    const before = (await copies(s)).length;
    const headers = { "idempotency-key": "order-1024-payment" };
    const first = await callOperation(s, "create_payment", valid, { headers });
    const replay = await callOperation(s, "create_payment", valid, { headers });
    expect(first.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.text).toBe(first.text);
    expect((await copies(s)).length).toBe(before + 1);
    const other = await callOperation(s, "create_payment", { ...valid, amount: 1300 }, { headers });
    expect(other.status).toBe(409);
    expect(other.body.error.details).toEqual({ reason: "idempotency_key_reused" });
  });
});
