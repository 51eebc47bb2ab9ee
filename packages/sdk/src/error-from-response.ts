// Turns a non-2xx gateway response into the matching GatewayError subclass, branching on the envelope's code.
import {
  ConflictError,
  GATEWAY_ERROR_CODES,
  GatewayError,
  type GatewayErrorInit,
  type GatewayErrorSubclassInit,
  InternalError,
  InvalidRequestError,
  type KnownGatewayErrorCode,
  NotFoundError,
  ProviderRejectedError,
  ProviderUnavailableError,
  RateLimitedError,
  ScopeDeniedError,
  UnauthorizedError,
} from "./errors.ts";

/** A fetch `Headers`, or Node's plain header object. */
export type ResponseHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

type ErrorClass = new (init: GatewayErrorSubclassInit) => GatewayError;

const classByCode: Record<KnownGatewayErrorCode, ErrorClass> = {
  invalid_request: InvalidRequestError,
  unauthorized: UnauthorizedError,
  scope_denied: ScopeDeniedError,
  not_found: NotFoundError,
  conflict: ConflictError,
  provider_rejected: ProviderRejectedError,
  rate_limited: RateLimitedError,
  provider_unavailable: ProviderUnavailableError,
  internal_error: InternalError,
};

const codeByStatus = new Map<number, KnownGatewayErrorCode>(
  Object.entries(GATEWAY_ERROR_CODES).map(([code, { status }]) => [status, code as KnownGatewayErrorCode]),
);

/** What the response alone does not say about its request. */
export interface SentRequest {
  /** The Idempotency-Key the request carried, if any. */
  idempotencyKey?: string | undefined;
}

/**
 * Builds the error for a non-2xx response. `body` is the parsed JSON (or the text) of the response.
 * A known `error.code` picks its class whatever the status; an unknown code (announced later, always under an
 * existing status) keeps its own `code` and gets the class of its status; no envelope at all (a proxy's page) gets
 * the class and code of the status, or a plain GatewayError for other statuses. `Idempotent-Replayed: true` makes it
 * a replayed error, never retryable.
 */
export function errorFromResponse(
  status: number,
  body: unknown,
  headers?: ResponseHeaders,
  request: SentRequest = {},
): GatewayError {
  const envelope = readEnvelope(body);
  const retryAfterSeconds = parseRetryAfter(header(headers, "retry-after"));
  const requestId = envelope?.requestId ?? header(headers, "x-request-id") ?? null;
  const knownCode = envelope !== undefined && isKnownCode(envelope.code) ? envelope.code : codeByStatus.get(status);
  const code = envelope?.code ?? knownCode ?? `http_${status}`;
  const init: GatewayErrorInit = {
    code,
    status,
    message: envelope?.message ?? describeBareResponse(status, body),
    requestId,
    provider: envelope?.provider,
    retryable:
      isIdempotencyInProgress(envelope) ||
      (envelope?.retryable ?? (knownCode ? GATEWAY_ERROR_CODES[knownCode].retryable : isTransient(status))),
    details: envelope?.details,
    fix: envelope?.fix,
    retryAfterSeconds,
    idempotencyKey: request.idempotencyKey,
    replayed: header(headers, "idempotent-replayed") === "true",
  };
  return knownCode === undefined ? new GatewayError(init) : new classByCode[knownCode](init);
}

interface Envelope {
  code: string;
  message: string | undefined;
  requestId: string | undefined;
  provider: string | undefined;
  retryable: boolean | undefined;
  details: unknown;
  fix: string | undefined;
}

function readEnvelope(body: unknown): Envelope | undefined {
  const parsed = typeof body === "string" ? parseJson(body) : body;
  if (!isRecord(parsed) || !isRecord(parsed.error) || typeof parsed.error.code !== "string") return undefined;
  const error = parsed.error;
  return {
    code: error.code as string,
    message: stringOrUndefined(error.message),
    // The envelope spells it request_id; the per-operation schemas also allow requestId.
    requestId: stringOrUndefined(error.request_id) ?? stringOrUndefined(error.requestId),
    provider: stringOrUndefined(error.provider),
    retryable: typeof error.retryable === "boolean" ? error.retryable : undefined,
    details: error.details,
    fix: stringOrUndefined(error.fix),
  };
}

function isKnownCode(code: string): code is KnownGatewayErrorCode {
  return Object.hasOwn(GATEWAY_ERROR_CODES, code);
}

/**
 * The 409 of a repeat that found the first request under its Idempotency-Key still running. The envelope calls every
 * 409 not retryable, but this one asks to retry later with the same key: the repeat then gets the first answer.
 */
function isIdempotencyInProgress(envelope: Envelope | undefined): boolean {
  return (
    envelope?.code === "conflict" && isRecord(envelope.details) && envelope.details.reason === "idempotency_in_progress"
  );
}

function isTransient(status: number): boolean {
  return status === 429 || status === 502 || status === 503 || status === 504;
}

function describeBareResponse(status: number, body: unknown): string {
  const text = typeof body === "string" ? body.trim().slice(0, 200) : "";
  return `The gateway answered HTTP ${status} without an error envelope${text ? `: ${text}` : "."}`;
}

const day = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
const month = "(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
const time = "\\d{2}:\\d{2}:\\d{2}";
/** The three forms of an HTTP-date (RFC 9110 §5.6.7): IMF-fixdate, RFC 850's, and asctime's (which names no zone). */
const httpDate = new RegExp(
  `^(?:${day}, \\d{2} ${month} \\d{4} ${time} GMT|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, \\d{2}-${month}-\\d{2} ${time} GMT|${day} ${month} (?: \\d|\\d{2}) ${time} \\d{4})$`,
);

/**
 * Retry-After is delay-seconds or an HTTP-date (RFC 9110 §10.2.3); either becomes whole seconds from now, never
 * negative. Anything else is null, so that the retry falls back to backoff: `Date.parse` alone would read "1.5" or
 * "-5" as a date in the past, and retry at once.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number = Date.now()): number | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  if (/^[0-9]+$/.test(trimmed)) return Number(trimmed);
  if (!httpDate.test(trimmed)) return null;
  const date = Date.parse(trimmed.endsWith("GMT") ? trimmed : `${trimmed} GMT`);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - nowMs) / 1000));
}

function header(headers: ResponseHeaders | undefined, name: string): string | undefined {
  if (headers === undefined) return undefined;
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (key.toLowerCase() !== name) continue;
    return typeof value === "string" ? value : value?.[0];
  }
  return undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}
