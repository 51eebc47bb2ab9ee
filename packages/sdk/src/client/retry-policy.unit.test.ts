// The client retry rules and the backoff arithmetic, without any network.
import { describe, expect, it } from "vitest";
import { GatewayConnectionError, InvalidRequestError, ProviderUnavailableError, RateLimitedError } from "../errors.ts";
import { backoffMs, isRepeatable, retryDelayMs } from "./retry-policy.ts";

describe("isRepeatable: which requests may be sent again", () => {
  it("GET and DELETE always; POST only read-only or with an Idempotency-Key", () => {
    expect(isRepeatable({ method: "GET", readOnly: false, idempotencyKey: undefined })).toBe(true);
    expect(isRepeatable({ method: "DELETE", readOnly: false, idempotencyKey: undefined })).toBe(true);
    expect(isRepeatable({ method: "POST", readOnly: true, idempotencyKey: undefined })).toBe(true);
    expect(isRepeatable({ method: "POST", readOnly: false, idempotencyKey: "k" })).toBe(true);
    expect(isRepeatable({ method: "POST", readOnly: false, idempotencyKey: undefined })).toBe(false);
  });
});

describe("backoffMs: full jitter, base 0.5 s, cap 8 s", () => {
  it("is random × min(cap, base × 2^retry)", () => {
    expect([0, 1, 2, 3, 4, 5, 10].map((retry) => backoffMs(retry, () => 0.5))).toEqual([
      250, 500, 1000, 2000, 4000, 4000, 4000,
    ]);
    expect(backoffMs(0, () => 0)).toBe(0);
    expect(backoffMs(30, () => 0.999_999)).toBeLessThan(8000);
  });
});

describe("retryDelayMs", () => {
  const context = { retry: 0, maxRetries: 3, repeatable: true, random: () => 0.5 };
  const unavailable = new ProviderUnavailableError({ message: "down" });
  const limited = (seconds: number) => new RateLimitedError({ message: "slow down", retryAfterSeconds: seconds });

  it("backs off on retryable errors: 502 and connection failures", () => {
    expect(retryDelayMs(unavailable, context)).toBe(250);
    expect(retryDelayMs(new GatewayConnectionError({ message: "reset" }), { ...context, retry: 2 })).toBe(1000);
  });

  it("follows Retry-After instead, up to a minute; 0 means at once", () => {
    expect(retryDelayMs(limited(2), context)).toBe(2000);
    expect(retryDelayMs(limited(0), context)).toBe(0);
    expect(retryDelayMs(limited(60), context)).toBe(60_000);
    expect(retryDelayMs(limited(61), context)).toBeUndefined();
    const withHint = new ProviderUnavailableError({ message: "provider rate limited", retryAfterSeconds: 5 });
    expect(retryDelayMs(withHint, context)).toBe(5000);
  });

  it("never retries what is not retryable, not repeatable, or past the cap", () => {
    expect(retryDelayMs(new InvalidRequestError({ message: "bad" }), context)).toBeUndefined();
    expect(retryDelayMs(unavailable, { ...context, repeatable: false })).toBeUndefined();
    expect(retryDelayMs(unavailable, { ...context, retry: 3 })).toBeUndefined();
    expect(retryDelayMs(unavailable, { ...context, maxRetries: 0 })).toBeUndefined();
  });
});
