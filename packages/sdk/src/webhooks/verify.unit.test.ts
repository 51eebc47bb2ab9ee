// verifyWebhook's five rules, one case per way a delivery can be refused, plus the acceptances around them.
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { verifyWebhookSync } from "./node.ts";
import { signWebhookPayload } from "./sign.ts";
import type { WebhookVerificationFailureReason } from "./verification-error.ts";
import { verifyWebhook } from "./verify.ts";
import type { VerifyWebhookOptions } from "./verify-core.ts";

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const otherSecret = "whsec_2yOc4pzGgqLSDoW7nCN0u0wVjJHHqPaH";
const t = 1_767_225_600;
const now = t * 1000;
const body = JSON.stringify({
  id: "evt_01JH8Y4W6Q",
  type: "reservation.confirmed",
  created_at: "2026-01-01T00:00:00Z",
  data: {
    object: {
      id: "rsv_123",
      status: "confirmed",
      restaurant_id: "rst_approval",
      starts_at: "2026-01-10T19:00:00+09:00",
      party_size: 2,
    },
  },
});

/** The digest computed independently of the SDK: HMAC-SHA256, key = the whole secret string. */
function digest(key: string, content: string): string {
  return createHmac("sha256", key).update(content).digest("hex");
}

async function rejection(options: Partial<VerifyWebhookOptions>): Promise<WebhookVerificationFailureReason> {
  const error = await verifyWebhook({ rawBody: body, header: undefined, secret, now, ...options }).then(
    () => expect.unreachable("verification should have failed"),
    (caught: unknown) => caught,
  );
  expect(error).toMatchObject({ name: "WebhookVerificationError" });
  return (error as { reason: WebhookVerificationFailureReason }).reason;
}

describe("verifyWebhook accepts", () => {
  it("a delivery signed with the secret and returns the typed event", async () => {
    const header = `t=${t},v2=${digest(secret, `${t}.${body}`)}`;
    const event = await verifyWebhook({ rawBody: body, header, secret, now });
    expect(event.type).toBe("reservation.confirmed");
    if (event.type === "reservation.confirmed") expect(event.data.object.party_size).toBe(2);
  });

  it("keys the HMAC with the whole secret string, whsec_ prefix included, nothing decoded", async () => {
    const decodedKey = Buffer.from(secret.slice("whsec_".length), "base64url");
    const withDecodedKey = createHmac("sha256", decodedKey).update(`${t}.${body}`).digest("hex");
    expect(await rejection({ header: `t=${t},v2=${withDecodedKey}` })).toBe("no_matching_signature");
    const withoutPrefix = digest(secret.slice("whsec_".length), `${t}.${body}`);
    expect(await rejection({ header: `t=${t},v2=${withoutPrefix}` })).toBe("no_matching_signature");
  });

  it("the body as a Buffer, a Uint8Array or an ArrayBuffer, and a header given as an array", async () => {
    const header = await signWebhookPayload({ payload: body, secret, timestamp: t });
    const bytes = new TextEncoder().encode(body);
    for (const rawBody of [Buffer.from(body), bytes, bytes.buffer]) {
      await expect(verifyWebhook({ rawBody, header, secret, now })).resolves.toMatchObject({ id: "evt_01JH8Y4W6Q" });
    }
    await expect(verifyWebhook({ rawBody: body, header: [header], secret, now })).resolves.toBeDefined();
    // Header lines received apart (as Node gives a repeated header) are read together, as one list.
    const [stamp = "", ...signatures] = header.split(",");
    await expect(verifyWebhook({ rawBody: body, header: [stamp, ...signatures], secret, now })).resolves.toBeDefined();
  });

  it("whitespace around the parts of the header", async () => {
    const header = ` t = ${t} ,  v2=${digest(secret, `${t}.${body}`)} , `;
    await expect(verifyWebhook({ rawBody: body, header, secret, now })).resolves.toBeDefined();
  });

  it("a timestamp exactly 300 s away, in the past and in the future; now as a Date", async () => {
    const header = await signWebhookPayload({ payload: body, secret, timestamp: t });
    for (const skew of [-300_000, 300_000]) {
      await expect(verifyWebhook({ rawBody: body, header, secret, now: now + skew })).resolves.toBeDefined();
    }
    await expect(verifyWebhook({ rawBody: body, header, secret, now: new Date(now) })).resolves.toBeDefined();
  });

  it("signs over t exactly as sent, leading zeros included, never re-formatted", async () => {
    const header = `t=0${t},v2=${digest(secret, `0${t}.${body}`)}`;
    expect((await verifyWebhook({ rawBody: body, header, secret, now })).id).toBe("evt_01JH8Y4W6Q");
    expect(await rejection({ header: `t=0${t},v2=${digest(secret, `${t}.${body}`)}` })).toBe("no_matching_signature");
  });

  it("a second v2 entry that matches, and ignores v1 entirely", async () => {
    const good = digest(secret, `${t}.${body}`);
    const header = `t=${t},v2=${digest(otherSecret, `${t}.${body}`)},v2=${good},v1=not-even-hex`;
    await expect(verifyWebhook({ rawBody: body, header, secret, now })).resolves.toBeDefined();
  });

  it("any of several secrets, given as secrets and together with secret", async () => {
    const header = await signWebhookPayload({ payload: body, secret: otherSecret, timestamp: t });
    await expect(verifyWebhook({ rawBody: body, header, secrets: [secret, otherSecret], now })).resolves.toBeDefined();
    await expect(verifyWebhook({ rawBody: body, header, secret, secrets: [otherSecret], now })).resolves.toBeDefined();
    const rotated = await signWebhookPayload({ payload: body, secret: [secret, otherSecret], timestamp: t });
    expect(rotated.split(",")).toHaveLength(3);
    await expect(verifyWebhook({ rawBody: body, header: rotated, secret: otherSecret, now })).resolves.toBeDefined();
  });
});

describe("verifyWebhook rejects", () => {
  const v2 = digest(secret, `${t}.${body}`);

  it("a missing or empty header", async () => {
    for (const header of [undefined, null, "", "  ", []]) expect(await rejection({ header })).toBe("missing_header");
  });

  it("a header without t, without v2, or with only the legacy v1", async () => {
    expect(await rejection({ header: `v2=${v2}` })).toBe("malformed_header");
    expect(await rejection({ header: `t=${t}` })).toBe("malformed_header");
    const v1 = digest(secret, body);
    expect(await rejection({ header: `t=${t},v1=${v1}` })).toBe("malformed_header");
    expect(await rejection({ header: `t=${t},v1=${v1},v2=${"0".repeat(64)}` })).toBe("no_matching_signature");
  });

  it("a t that is not an integer, or given twice, and parts that are not key=value", async () => {
    for (const stamp of ["12.5", "abc", "-5", "", "1e9", "0x10", "١٢٣"]) {
      expect(await rejection({ header: `t=${stamp},v2=${v2}` })).toBe("malformed_header");
    }
    expect(await rejection({ header: `t=${t},t=${t},v2=${v2}` })).toBe("malformed_header");
    expect(await rejection({ header: `t=${t},v2=${v2},garbage` })).toBe("malformed_header");
    expect(await rejection({ header: `t=${t},v2=${v2},=x` })).toBe("malformed_header");
    expect(await rejection({ header: `t=${t},v2=` })).toBe("malformed_header");
  });

  it("a timestamp 301 s in the past or in the future, and beyond a custom tolerance", async () => {
    const header = `t=${t},v2=${v2}`;
    expect(await rejection({ header, now: now + 301_000 })).toBe("timestamp_out_of_tolerance");
    expect(await rejection({ header, now: now - 301_000 })).toBe("timestamp_out_of_tolerance");
    // Whole seconds, as t is: any moment of second t + 300 is within, second t + 301 is not.
    expect(await rejection({ header, now: now - 300_001 })).toBe("timestamp_out_of_tolerance");
    expect(await verifyWebhook({ rawBody: body, header, secret, now: now + 300_999 })).toBeDefined();
    expect(await verifyWebhook({ rawBody: body, header, secret, now: now - 300_000 })).toBeDefined();
    expect(await verifyWebhook({ rawBody: body, header, secret, now: now + 999, toleranceSeconds: 0 })).toBeDefined();
    expect(await rejection({ header, now: now + 61_000, toleranceSeconds: 60 })).toBe("timestamp_out_of_tolerance");
  });

  it("a timestamp by the current second, at the edges of the gateway's check of inbound hooks; verifyWebhookSync too", async () => {
    const header = `t=${t},v2=${v2}`;
    const edges = [300_000, 300_999, 301_000, -300_000, -300_001, -301_000];
    const verdicts = async (verify: (options: VerifyWebhookOptions) => unknown) => {
      const seen: [number, string][] = [];
      for (const offset of edges) {
        try {
          await verify({ rawBody: body, header, secret, now: now + offset });
          seen.push([offset, "accepted"]);
        } catch (error) {
          seen.push([offset, (error as { reason: string }).reason]);
        }
      }
      return seen;
    };
    const expected = [
      [300_000, "accepted"], // exactly 300 s old
      [300_999, "accepted"], // the last millisecond of second t + 300
      [301_000, "timestamp_out_of_tolerance"], // 300 s + 1 s old
      [-300_000, "accepted"], // t 300 s in the future
      [-300_001, "timestamp_out_of_tolerance"], // the last millisecond of second t - 301
      [-301_000, "timestamp_out_of_tolerance"], // t 301 s in the future
    ];
    expect(await verdicts(verifyWebhook)).toEqual(expected);
    expect(await verdicts(verifyWebhookSync)).toEqual(expected);
  });

  it("a tampered body, and the same JSON re-serialised with different whitespace", async () => {
    const header = `t=${t},v2=${v2}`;
    expect(await rejection({ header, rawBody: body.replace('"party_size":2', '"party_size":20') })).toBe(
      "no_matching_signature",
    );
    const reserialised = JSON.stringify(JSON.parse(body), null, 2);
    expect(await rejection({ header, rawBody: reserialised })).toBe("no_matching_signature");
    expect(await rejection({ header, rawBody: `${body}\n` })).toBe("no_matching_signature");
  });

  it("a v2 of the wrong length, in upper case, or signed over another timestamp", async () => {
    for (const candidate of [v2.slice(0, -1), `${v2}0`, v2.slice(0, 32), v2.toUpperCase()]) {
      expect(await rejection({ header: `t=${t},v2=${candidate}` })).toBe("no_matching_signature");
    }
    expect(await rejection({ header: `t=${t + 1},v2=${v2}` })).toBe("no_matching_signature");
  });

  it("a signature made with none of the secrets", async () => {
    const header = `t=${t},v2=${v2}`;
    expect(await rejection({ header, secret: undefined, secrets: [otherSecret] })).toBe("no_matching_signature");
  });

  it("a signed body that is not JSON or not an event, but checks the signature first", async () => {
    for (const rawBody of ["not json", "[1,2]", '{"id":"evt_1"}']) {
      const header = await signWebhookPayload({ payload: rawBody, secret, timestamp: t });
      expect(await rejection({ header, rawBody })).toBe("invalid_json");
    }
    expect(await rejection({ header: `t=${t},v2=${v2}`, rawBody: "not json" })).toBe("no_matching_signature");
    const invalidUtf8 = new Uint8Array([0x7b, 0xff, 0x7d]);
    const header = await signWebhookPayload({ payload: invalidUtf8, secret, timestamp: t });
    expect(await rejection({ header, rawBody: invalidUtf8 })).toBe("invalid_json");
  });

  it("a signed body with a byte that is not UTF-8 inside a string, rather than reading it as U+FFFD", async () => {
    const at = body.indexOf("rst_approval");
    const rawBody = new Uint8Array(
      Buffer.concat([Buffer.from(body.slice(0, at)), Buffer.from([0xff]), Buffer.from(body.slice(at))]),
    );
    const header = await signWebhookPayload({ payload: rawBody, secret, timestamp: t });
    expect(await rejection({ header, rawBody })).toBe("invalid_json");
  });

  it("a signed event without created_at, or whose data holds no object", async () => {
    const event = JSON.parse(body) as Record<string, unknown>;
    const { created_at: _, ...withoutCreatedAt } = event;
    for (const rawBody of [
      JSON.stringify(withoutCreatedAt),
      JSON.stringify({ ...event, created_at: 1_767_225_600 }),
      JSON.stringify({ ...event, data: { id: "rsv_123" } }),
    ]) {
      const header = await signWebhookPayload({ payload: rawBody, secret, timestamp: t });
      expect(await rejection({ header, rawBody })).toBe("invalid_json");
    }
  });
});

describe("verifyWebhook refuses misuse with TypeError or RangeError", () => {
  const header = `t=${t},v2=0`;
  it("no secret, an empty secret, a parsed body, a bad tolerance or clock", async () => {
    await expect(verifyWebhook({ rawBody: body, header, now })).rejects.toThrow(TypeError);
    await expect(verifyWebhook({ rawBody: body, header, secret: "", now })).rejects.toThrow(TypeError);
    const parsed = JSON.parse(body) as unknown as string;
    await expect(verifyWebhook({ rawBody: parsed, header, secret, now })).rejects.toThrow(/raw/);
    await expect(verifyWebhook({ rawBody: body, header, secret, toleranceSeconds: -1 })).rejects.toThrow(RangeError);
    await expect(verifyWebhook({ rawBody: body, header, secret, now: Number.NaN })).rejects.toThrow(RangeError);
  });
  it("(body, headers, secret) as other SDKs take them, from plain JavaScript: says what it takes", async () => {
    const positional = verifyWebhook as unknown as (...args: unknown[]) => Promise<unknown>;
    const message = "verifyWebhook takes one options object: { rawBody, header, secret }.";
    await expect(positional(body, { "gateway-signature": header }, secret)).rejects.toThrow(new TypeError(message));
    expect(() => (verifyWebhookSync as unknown as (...args: unknown[]) => unknown)(body, {}, secret)).toThrow(
      new TypeError(message),
    );
  });
});
