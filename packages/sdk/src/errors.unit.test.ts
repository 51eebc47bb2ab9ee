// errorFromResponse builds the class of the envelope's code, keeps every field, and falls back by status.
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { errorFromResponse, parseRetryAfter } from "./error-from-response.ts";
import {
  ConflictError,
  GatewayConnectionError,
  GatewayError,
  InternalError,
  InvalidRequestError,
  isGatewayError,
  NotFoundError,
  ProviderRejectedError,
  ProviderUnavailableError,
  RateLimitedError,
  ScopeDeniedError,
  UnauthorizedError,
} from "./errors.ts";

const cases = [
  { code: "invalid_request", status: 400, type: InvalidRequestError, retryable: false },
  { code: "unauthorized", status: 401, type: UnauthorizedError, retryable: false },
  { code: "scope_denied", status: 403, type: ScopeDeniedError, retryable: false },
  { code: "not_found", status: 404, type: NotFoundError, retryable: false },
  { code: "conflict", status: 409, type: ConflictError, retryable: false },
  { code: "provider_rejected", status: 422, type: ProviderRejectedError, retryable: false },
  { code: "rate_limited", status: 429, type: RateLimitedError, retryable: true },
  { code: "provider_unavailable", status: 502, type: ProviderUnavailableError, retryable: true },
  { code: "internal_error", status: 500, type: InternalError, retryable: false },
] as const;

function envelope(code: string, extra: Record<string, unknown> = {}) {
  return { error: { code, message: `message for ${code}`, request_id: "req_123", ...extra } };
}

describe("errorFromResponse", () => {
  for (const { code, status, type, retryable } of cases) {
    it(`${status} ${code} → ${type.name}`, () => {
      const body = envelope(code, { retryable, provider: "dining", details: [{ path: "/x", message: "m" }], fix: "f" });
      const error = errorFromResponse(status, body, { "X-Request-Id": "req_header" });
      expect(error).toBeInstanceOf(type);
      expect(error).toBeInstanceOf(GatewayError);
      expect(isGatewayError(error)).toBe(true);
      expect(error).toMatchObject({ name: type.name, code, status, retryable, requestId: "req_123" });
      expect(error).toMatchObject({ message: `message for ${code}`, provider: "dining", fix: "f" });
      expect(error.details).toEqual([{ path: "/x", message: "m" }]);
      // Without `retryable` in the envelope, GATEWAY_ERROR_CODES decides.
      expect(errorFromResponse(status, envelope(code)).retryable).toBe(retryable);
      expect(errorFromResponse(status, JSON.stringify(envelope(code)))).toBeInstanceOf(type);
    });
  }

  it("branches on code, never on message or status", () => {
    const error = errorFromResponse(400, envelope("conflict", { message: "not_found" }));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.status).toBe(400);
  });

  it("keeps an unknown code and picks the class of its status", () => {
    const error = errorFromResponse(409, envelope("slot_expired"));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.code).toBe("slot_expired");
    expect(error.retryable).toBe(false);
    const unmapped = errorFromResponse(418, envelope("teapot", { retryable: true }));
    expect(unmapped.constructor).toBe(GatewayError);
    expect(unmapped).toMatchObject({ code: "teapot", status: 418, retryable: true });
  });

  it("falls back by status without an envelope, and takes the request id from the header", () => {
    const error = errorFromResponse(502, "<html>Bad Gateway</html>", new Headers({ "x-request-id": "req_h" }));
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error).toMatchObject({ code: "provider_unavailable", retryable: true, requestId: "req_h" });
    expect(error.message).toContain("Bad Gateway");
    expect(errorFromResponse(500, null)).toMatchObject({ code: "internal_error", requestId: null });
    const bare = errorFromResponse(503, undefined);
    expect(bare.constructor).toBe(GatewayError);
    expect(bare).toMatchObject({ code: "http_503", retryable: true });
  });

  it("reads requestId when the response spells it so", () => {
    const body = { error: { code: "not_found", message: "m", requestId: "req_camel" } };
    expect(errorFromResponse(404, body).requestId).toBe("req_camel");
  });

  it("a 409 idempotency_in_progress is retryable (with the same key); every other 409 is not", () => {
    const conflict = (reason?: string) =>
      envelope("conflict", { retryable: false, ...(reason !== undefined && { details: { reason } }) });
    expect(errorFromResponse(409, conflict("idempotency_in_progress"))).toMatchObject({ retryable: true });
    expect(errorFromResponse(409, conflict("idempotency_key_reused"))).toMatchObject({ retryable: false });
    expect(errorFromResponse(409, conflict("illegal_transition"))).toMatchObject({ retryable: false });
    expect(errorFromResponse(409, conflict())).toMatchObject({ retryable: false });
  });

  it("marks a replayed answer (Idempotent-Replayed: true) as such and never retryable, with the request's key", () => {
    const body = envelope("provider_unavailable", { retryable: true, provider: "shopping" });
    const replayed = errorFromResponse(502, body, { "Idempotent-Replayed": "true" }, { idempotencyKey: "order-1" });
    expect(replayed).toBeInstanceOf(ProviderUnavailableError);
    expect(replayed).toMatchObject({ replayed: true, retryable: false, idempotencyKey: "order-1" });
    const first = errorFromResponse(502, body, new Headers(), { idempotencyKey: "order-1" });
    expect(first).toMatchObject({ replayed: false, retryable: true, idempotencyKey: "order-1" });
    expect(errorFromResponse(502, body)).toMatchObject({ replayed: false, idempotencyKey: null });
  });

  it("reads Retry-After as seconds or as a date", () => {
    const error = errorFromResponse(429, envelope("rate_limited"), { "retry-after": "7" });
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error.retryAfterSeconds).toBe(7);
    expect(errorFromResponse(429, envelope("rate_limited")).retryAfterSeconds).toBeNull();
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:30 GMT", now)).toBe(30);
    expect(parseRetryAfter("Wed, 31 Dec 2025 00:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeNull();
    // The other two forms of an HTTP-date; anything else (a fraction, a sign, a date in another format) is null.
    expect(parseRetryAfter("Thursday, 01-Jan-26 00:01:00 GMT", now)).toBe(60);
    expect(parseRetryAfter("Thu Jan  1 00:00:05 2026", now)).toBe(5);
    for (const garbage of ["1.5", "-5", "+5", "2026-01-01T00:00:30Z", "soon 2099", ""]) {
      expect(parseRetryAfter(garbage, now), garbage).toBeNull();
    }
  });
});

describe("the error classes", () => {
  it("a subclass fills code, status and retryable from the catalogue", () => {
    const error = new RateLimitedError({ message: "slow down", retryAfterSeconds: 3 });
    expect(error).toMatchObject({ code: "rate_limited", status: 429, retryable: true, retryAfterSeconds: 3 });
    expect(error.requestId).toBeNull();
    expect(String(error)).toBe("RateLimitedError: slow down");
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ code: "rate_limited", message: "slow down" });
  });

  it("a replayed error is never retryable; toJSON says so and leaves the key out (it opens the stored answer)", () => {
    const error = new ProviderUnavailableError({ message: "down", replayed: true, idempotencyKey: "order-1" });
    expect(error).toMatchObject({ retryable: false, replayed: true, idempotencyKey: "order-1" });
    const logged = JSON.parse(JSON.stringify(error));
    expect(logged).toMatchObject({ code: "provider_unavailable", retryable: false, replayed: true });
    expect(logged).not.toHaveProperty("idempotencyKey");
    // Nor do loggers that copy an error's own properties, nor util.inspect (console.log).
    expect(Object.keys(error)).not.toContain("idempotencyKey");
    expect({ ...error }).not.toHaveProperty("idempotencyKey");
    expect(inspect(error)).not.toContain("order-1");
    expect(error.idempotencyKey).toBe("order-1");
  });

  it("GatewayConnectionError is retryable, has no status and keeps the cause", () => {
    const cause = new Error("ECONNREFUSED");
    const error = new GatewayConnectionError({ message: "could not connect", cause });
    expect(error).toMatchObject({ code: "connection_error", status: 0, retryable: true, timedOut: false });
    expect(error).toMatchObject({ replayed: false, idempotencyKey: null });
    expect(error.cause).toBe(cause);
    expect(isGatewayError(error)).toBe(true);
    expect(new GatewayConnectionError({ message: "timeout", timedOut: true }).timedOut).toBe(true);
  });

  it("isGatewayError is false for other values", () => {
    for (const value of [new Error("x"), { code: "not_found" }, null, "not_found"]) {
      expect(isGatewayError(value)).toBe(false);
    }
  });
});
