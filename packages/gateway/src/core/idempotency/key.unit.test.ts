// The Idempotency-Key header grammar and the fingerprint's inputs.
import { describe, expect, it } from "vitest";
import { GatewayError } from "../errors.ts";
import { idempotencyKeyHash, parseIdempotencyKey, requestFingerprint, upstreamIdempotencyKey } from "./key.ts";
import { openResponse, sealResponse } from "./seal.ts";

describe("parseIdempotencyKey", () => {
  it("takes printable ASCII literally, spaces and quotes inside included", () => {
    expect(parseIdempotencyKey("a")).toBe("a");
    expect(parseIdempotencyKey('order 42 / "x"')).toBe('order 42 / "x"');
    expect(parseIdempotencyKey("~".repeat(255))).toHaveLength(255);
  });

  it("reads a structured-field string", () => {
    expect(parseIdempotencyKey('"abc"')).toBe("abc");
    expect(parseIdempotencyKey('"a\\"b\\\\c"')).toBe('a"b\\c');
  });

  it.each(['""', "", "x".repeat(256), "\u00e9", '"abc', '"a"b"', '"a\\nb"', "tab\there", ["a", "b"]])(
    "refuses %j",
    (value) => {
      expect(() => parseIdempotencyKey(value as string)).toThrow(GatewayError);
    },
  );
});

describe("requestFingerprint", () => {
  const base = {
    caller: "key_A",
    method: "POST",
    path: "/v1/p/o",
    connectionId: undefined,
    rawBody: Buffer.from("{}"),
  };
  it("changes with each input and treats an absent body as empty", () => {
    const reference = requestFingerprint(base);
    expect(requestFingerprint({ ...base })).toBe(reference);
    expect(requestFingerprint({ ...base, path: "/v1/p/q" })).not.toBe(reference);
    expect(requestFingerprint({ ...base, caller: "key_B" })).not.toBe(reference);
    expect(requestFingerprint({ ...base, connectionId: "conn_x" })).not.toBe(reference);
    expect(requestFingerprint({ ...base, rawBody: Buffer.from("{ }") })).not.toBe(reference);
    // Inputs are kept apart: what one loses at its end, the next does not make up for.
    expect(requestFingerprint({ ...base, path: "/v1/p/oc", connectionId: undefined })).not.toBe(
      requestFingerprint({ ...base, path: "/v1/p/o", connectionId: "c" }),
    );
    expect(requestFingerprint({ ...base, caller: "key_AP", method: "OST" })).not.toBe(reference);
    expect(requestFingerprint({ ...base, rawBody: undefined })).toBe(
      requestFingerprint({ ...base, rawBody: Buffer.alloc(0) }),
    );
  });
});

describe("upstreamIdempotencyKey", () => {
  it("is the same for one use of a key and call, another for any other, and never shows the key", () => {
    const ref = { accountId: "acct", keyHash: idempotencyKeyHash("order-42") };
    const reference = upstreamIdempotencyKey(ref, 1_000, 0);
    expect(reference).toMatch(/^[0-9a-f]{64}$/);
    expect(upstreamIdempotencyKey({ ...ref }, 1_000, 0)).toBe(reference);
    expect(upstreamIdempotencyKey(ref, 1_000, 1)).not.toBe(reference);
    expect(upstreamIdempotencyKey(ref, 2_000, 0)).not.toBe(reference);
    expect(upstreamIdempotencyKey({ ...ref, accountId: "other" }, 1_000, 0)).not.toBe(reference);
    expect(upstreamIdempotencyKey({ ...ref, keyHash: idempotencyKeyHash("order-43") }, 1_000, 0)).not.toBe(reference);
    expect(reference).not.toContain(ref.keyHash);
  });
});

describe("sealResponse", () => {
  it("opens only with the same key and account", () => {
    const body = Buffer.from('{"data":{"key":"gwk_secret"}}');
    const sealed = sealResponse(body, "k1", "acct");
    expect(openResponse(sealed, "k1", "acct").equals(body)).toBe(true);
    expect(() => openResponse(sealed, "k2", "acct")).toThrow();
    expect(() => openResponse(sealed, "k1", "other")).toThrow();
  });
});
