// The SDK's error types: one GatewayError carrying the gateway's stable code, a subclass per code, and the
// connection error for requests that got no response. errorFromResponse (error-from-response.ts) builds them.

/** The gateway's codes (eight public ones, `internal_error` for 500), the SDK's own `connection_error`, and any
 * code announced later: new codes arrive under an existing status, so keep a default branch. */
export type GatewayErrorCode =
  | "invalid_request"
  | "unauthorized"
  | "scope_denied"
  | "not_found"
  | "conflict"
  | "provider_rejected"
  | "rate_limited"
  | "provider_unavailable"
  | "internal_error"
  | "connection_error"
  | (string & {});

export interface GatewayErrorInit {
  code: GatewayErrorCode;
  message: string;
  /** HTTP status; 0 when no response was received. */
  status: number;
  requestId?: string | null | undefined;
  provider?: string | undefined;
  retryable: boolean;
  details?: unknown;
  fix?: string | undefined;
  /** From a Retry-After header, in whole seconds. */
  retryAfterSeconds?: number | null | undefined;
  /** The Idempotency-Key the request carried. */
  idempotencyKey?: string | null | undefined;
  /** The answer carried `Idempotent-Replayed: true`; makes the error not retryable. */
  replayed?: boolean | undefined;
  cause?: unknown;
}

const brand = Symbol.for("@provider-gateway/sdk.GatewayError");

export class GatewayError extends Error {
  override readonly name: string = "GatewayError";
  /** Branch on this, never on `message` (for people) and not on `status` alone. */
  readonly code: GatewayErrorCode;
  readonly status: number;
  /** `request_id` of the error envelope (or the X-Request-Id header): quote it to support. */
  readonly requestId: string | null;
  /** Set when the underlying provider caused the error (always on provider_rejected and provider_unavailable). */
  readonly provider: string | undefined;
  /**
   * True when the same request, with the same `idempotencyKey`, may succeed later, with backoff (rate_limited,
   * provider_unavailable, no response, a conflict whose key is still in progress). Always false for a replayed
   * answer: that key gets the same answer again.
   */
  readonly retryable: boolean;
  /** On invalid_request: `[{path, message}]`, one entry per failing field. */
  readonly details: unknown;
  /** A hint on how to fix the request, when the gateway has one. */
  readonly fix: string | undefined;
  readonly retryAfterSeconds: number | null;
  /**
   * The Idempotency-Key the request was sent with: the caller's, or the one the SDK generated; null without one.
   * Calling again with it as `idempotencyKey` is the same request: the gateway runs the operation at most once.
   * Not enumerable, so that loggers that copy an error's own properties (and `util.inspect`, `console.log`) leave it
   * out, as `toJSON` does.
   */
  declare readonly idempotencyKey: string | null;
  /**
   * True when the gateway answered with the stored answer of an earlier request under this key
   * (`Idempotent-Replayed: true`): the operation may have run then, and every repeat with the key gets this answer.
   */
  readonly replayed: boolean;

  constructor(init: GatewayErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.status = init.status;
    this.requestId = init.requestId ?? null;
    this.provider = init.provider;
    this.replayed = init.replayed ?? false;
    this.retryable = init.retryable && !this.replayed;
    this.details = init.details;
    this.fix = init.fix;
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
    Object.defineProperty(this, "idempotencyKey", { value: init.idempotencyKey ?? null, enumerable: false });
    Object.defineProperty(this, brand, { value: true });
  }

  /**
   * Errors serialise to `{}` by default; this keeps the fields in logs. Except `idempotencyKey`: with an API key of
   * the account it opens the stored answer, which may hold a secret shown once (a new API key, a webhook secret).
   */
  toJSON(): Record<string, unknown> {
    const { name, code, message, status, requestId, provider } = this;
    const { retryable, replayed, details, fix, retryAfterSeconds } = this;
    return { name, code, message, status, requestId, provider, retryable, replayed, details, fix, retryAfterSeconds };
  }
}

/** True for any GatewayError (subclasses included), also one from another copy of the SDK (ESM and CJS). */
export function isGatewayError(value: unknown): value is GatewayError {
  return value instanceof GatewayError || (value instanceof Error && Object.hasOwn(value, brand));
}

/** Status and retryability of each code the gateway defines (500 is internal_error). */
export const GATEWAY_ERROR_CODES = {
  invalid_request: { status: 400, retryable: false },
  unauthorized: { status: 401, retryable: false },
  scope_denied: { status: 403, retryable: false },
  not_found: { status: 404, retryable: false },
  conflict: { status: 409, retryable: false },
  provider_rejected: { status: 422, retryable: false },
  rate_limited: { status: 429, retryable: true },
  provider_unavailable: { status: 502, retryable: true },
  internal_error: { status: 500, retryable: false },
} as const satisfies Record<string, { status: number; retryable: boolean }>;

export type KnownGatewayErrorCode = keyof typeof GATEWAY_ERROR_CODES;

/** What a subclass needs: code, status and retryable default to the catalogue's values for its code. */
export type GatewayErrorSubclassInit = Omit<GatewayErrorInit, "code" | "status" | "retryable"> &
  Partial<Pick<GatewayErrorInit, "code" | "status" | "retryable">>;

function withDefaults(code: KnownGatewayErrorCode, init: GatewayErrorSubclassInit): GatewayErrorInit {
  const defaults = GATEWAY_ERROR_CODES[code];
  return {
    ...init,
    code: init.code ?? code,
    status: init.status ?? defaults.status,
    retryable: init.retryable ?? defaults.retryable,
  };
}

/** 400: the request failed schema validation; `details` lists every failing field. */
export class InvalidRequestError extends GatewayError {
  override readonly name: string = "InvalidRequestError";
  constructor(init: GatewayErrorSubclassInit) {
    super(withDefaults("invalid_request", init));
  }
}

/** 401: the API key is missing or invalid. */
export class UnauthorizedError extends GatewayError {
  override readonly name: string = "UnauthorizedError";
  constructor(init: GatewayErrorSubclassInit) {
    super(withDefaults("unauthorized", init));
  }
}

/** 403: the key's scopes do not cover this provider or operation. */
export class ScopeDeniedError extends GatewayError {
  override readonly name: string = "ScopeDeniedError";
  constructor(init: GatewayErrorSubclassInit) {
    super(withDefaults("scope_denied", init));
  }
}

/** 404: the resource (or connection) does not exist for this account. */
export class NotFoundError extends GatewayError {
  override readonly name: string = "NotFoundError";
  constructor(init: GatewayErrorSubclassInit) {
    super(withDefaults("not_found", init));
  }
}

/**
 * 409: conflicts with the resource's current state, or an Idempotency-Key reused for another request: re-read the
 * resource before building a new request. Except `details.reason` `idempotency_in_progress` (then `retryable`): the
 * first request under the key still runs, and the same key gets its answer later.
 */
export class ConflictError extends GatewayError {
  override readonly name: string = "ConflictError";
  constructor(init: GatewayErrorSubclassInit) {
    super(withDefaults("conflict", init));
  }
}

/** 422: the provider's own policy refused; resending returns the same answer. */
export class ProviderRejectedError extends GatewayError {
  override readonly name: string = "ProviderRejectedError";
  constructor(init: GatewayErrorSubclassInit) {
    super(withDefaults("provider_rejected", init));
  }
}

/** 429: over the rate limit; wait `retryAfterSeconds` (from Retry-After) before retrying. */
export class RateLimitedError extends GatewayError {
  override readonly name: string = "RateLimitedError";
  constructor(init: GatewayErrorSubclassInit) {
    super(withDefaults("rate_limited", init));
  }
}

/** 502: the underlying provider did not answer; retry with backoff. */
export class ProviderUnavailableError extends GatewayError {
  override readonly name: string = "ProviderUnavailableError";
  constructor(init: GatewayErrorSubclassInit) {
    super(withDefaults("provider_unavailable", init));
  }
}

/** 500: the gateway failed; quote `requestId` to support. */
export class InternalError extends GatewayError {
  override readonly name: string = "InternalError";
  constructor(init: GatewayErrorSubclassInit) {
    super(withDefaults("internal_error", init));
  }
}

/** No response: network failure, DNS, TLS, connection reset, or timeout. Retryable; `status` is 0. */
export class GatewayConnectionError extends GatewayError {
  override readonly name: string = "GatewayConnectionError";
  readonly timedOut: boolean;
  constructor(init: {
    message: string;
    timedOut?: boolean | undefined;
    idempotencyKey?: string | null | undefined;
    cause?: unknown;
  }) {
    const { message, idempotencyKey, cause } = init;
    super({ code: "connection_error", message, status: 0, retryable: true, idempotencyKey, cause });
    this.timedOut = init.timedOut ?? false;
  }
}
