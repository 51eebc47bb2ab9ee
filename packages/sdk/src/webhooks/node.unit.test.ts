// The synchronous node:crypto path gives the same answers as the Web Crypto one.
import { describe, expect, it } from "vitest";
import { signWebhookPayloadSync, verifyWebhookSync } from "./node.ts";
import { signWebhookPayload } from "./sign.ts";

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const otherSecret = "whsec_2yOc4pzGgqLSDoW7nCN0u0wVjJHHqPaH";
const t = 1_767_225_600;
const now = t * 1000;
const body = '{"id":"evt_1","type":"test.event","created_at":"2026-01-01T00:00:00Z","data":{"object":{}}}';

describe("verifyWebhookSync and signWebhookPayloadSync", () => {
  it("sign exactly as signWebhookPayload does, for one and several secrets", async () => {
    for (const keys of [secret, [secret, otherSecret]]) {
      expect(signWebhookPayloadSync({ payload: body, secret: keys, timestamp: t })).toBe(
        await signWebhookPayload({ payload: body, secret: keys, timestamp: t }),
      );
    }
  });

  it("take t as the second of a Date, and refuse a timestamp that is not whole seconds", () => {
    const fromDate = signWebhookPayloadSync({ payload: body, secret, timestamp: new Date(now + 999) });
    expect(fromDate).toBe(signWebhookPayloadSync({ payload: body, secret, timestamp: t }));
    expect(fromDate.startsWith(`t=${t},v2=`)).toBe(true);
    expect(() => signWebhookPayloadSync({ payload: body, secret, timestamp: t + 0.5 })).toThrow(RangeError);
  });

  it("key the HMAC with the secret exactly as given, whitespace included", () => {
    const spaced = ` ${secret} `;
    const header = signWebhookPayloadSync({ payload: body, secret: spaced, timestamp: t });
    expect(verifyWebhookSync({ rawBody: body, header, secret: spaced, now })).toMatchObject({ id: "evt_1" });
    expect(() => verifyWebhookSync({ rawBody: body, header, secret, now })).toThrow(/No v2 signature matches/);
  });

  it("accept a valid delivery and reject by the same reasons", () => {
    const header = signWebhookPayloadSync({ payload: body, secret, timestamp: t });
    expect(verifyWebhookSync({ rawBody: Buffer.from(body), header, secret, now })).toMatchObject({ id: "evt_1" });
    const reasons = [
      { header: undefined },
      { header: header.replace("v2=", "v1=") },
      { header, now: now + 301_000 },
      { header, rawBody: `${body} ` },
      { header, secret: otherSecret },
    ].map((override) => {
      try {
        verifyWebhookSync({ rawBody: body, secret, now, ...override });
        return "accepted";
      } catch (error) {
        return (error as { reason?: string }).reason;
      }
    });
    expect(reasons).toEqual([
      "missing_header",
      "malformed_header",
      "timestamp_out_of_tolerance",
      "no_matching_signature",
      "no_matching_signature",
    ]);
  });
});
