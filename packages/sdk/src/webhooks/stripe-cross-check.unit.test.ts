// Cross-check against Stripe's published Node library: Stripe's `v1` scheme is the same HMAC-SHA256 over
// `<t>.<raw body>` keyed with the whole `whsec_…` string, so each side must accept the other's signatures.
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { signWebhookPayload } from "./sign.ts";
import { verifyWebhook } from "./verify.ts";

const stripe = new Stripe("sk_test_cross_check_only_no_network");
const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const payload = JSON.stringify({
  id: "evt_cross",
  type: "test.event",
  created_at: "2026-01-01T00:00:00Z",
  data: { object: { note: "こんにちは" } },
});

/** Our header `t=…,v2=…` presented under Stripe's scheme name: `t=…,v1=…`. */
function asStripeHeader(ours: string): string {
  return ours.replace(/(^|,)v2=/g, "$1v1=");
}

describe("signWebhookPayload against Stripe's constructEvent", () => {
  it("Stripe accepts our signature of the raw body", async () => {
    const header = asStripeHeader(await signWebhookPayload({ payload, secret }));
    expect(stripe.webhooks.constructEvent(payload, header, secret)).toMatchObject({ id: "evt_cross" });
    expect(stripe.webhooks.constructEvent(Buffer.from(payload), header, secret)).toMatchObject({ id: "evt_cross" });
  });

  it("Stripe rejects a tampered body and another secret", async () => {
    const header = asStripeHeader(await signWebhookPayload({ payload, secret }));
    const tampered = payload.replace("こんにちは", "さようなら");
    expect(() => stripe.webhooks.constructEvent(tampered, header, secret)).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
    expect(() => stripe.webhooks.constructEvent(payload, header, `${secret}x`)).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
  });
});

describe("verifyWebhook against Stripe's generateTestHeaderString", () => {
  const timestamp = 1_767_225_600;
  const now = timestamp * 1000;

  it("we accept Stripe's signature once v1 is renamed v2, and reject it as v1", async () => {
    const stripeHeader = stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
    expect(stripeHeader).toMatch(/^t=1767225600,v1=[0-9a-f]{64}$/);
    const header = stripeHeader.replace(",v1=", ",v2=");
    await expect(verifyWebhook({ rawBody: payload, header, secret, now })).resolves.toMatchObject({ id: "evt_cross" });
    await expect(verifyWebhook({ rawBody: payload, header: stripeHeader, secret, now })).rejects.toMatchObject({
      reason: "malformed_header",
    });
    expect(header).toBe(await signWebhookPayload({ payload, secret, timestamp }));
  });

  it("we reject Stripe's signature over a tampered body", async () => {
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp }).replace(",v1=", ",v2=");
    await expect(verifyWebhook({ rawBody: `${payload} `, header, secret, now })).rejects.toMatchObject({
      reason: "no_matching_signature",
    });
  });
});
