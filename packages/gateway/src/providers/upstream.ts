// HTTP client of one provider's upstream: a keep-alive undici pool, a timeout, a circuit breaker, and the mapping of
// upstream failures onto the gateway's error codes.
import type { Static, TSchema } from "@sinclair/typebox";
import type { ValidateFunction } from "ajv";
import CircuitBreaker from "opossum";
import { Pool } from "undici";
import { credentialsRefused } from "../core/connections/with-access-token.ts";
import { GatewayError, type GatewayErrorOptions } from "../core/errors.ts";
import { retryAfterSeconds } from "../core/retry-after.ts";
import { upstreamRequestIdHeader } from "../core/upstream-request-id.ts";
import { createAjv } from "./ajv.ts";
import { callUpstream, UpstreamTimeoutError, UpstreamTooLargeError } from "./upstream-call.ts";

/**
 * The largest answer body taken from a provider. The largest the sandboxes give is under 1 MiB; a provider sending
 * hundreds of MB (by fault or malice) would otherwise hold that much memory per call and block the event loop for
 * seconds parsing it.
 */
export const upstreamBodyLimitBytes = 16 * 1024 * 1024;

export interface UpstreamRequest {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: Record<string, string | number | boolean | undefined | null>;
  body?: unknown;
  headers?: Record<string, string>;
  /** Bearer token of the connection the call runs under. */
  accessToken?: string;
}

/**
 * A request with the schema of the provider's 2xx answer, for a mapping whose output schema cannot catch a missing or
 * mistyped field (the catalogue's outputs are generic JSON values). An answer that does not match is not mapped: the
 * call throws an UnreadableAnswer, which the operation answers as a 502 `provider_unavailable`.
 */
export interface CheckedRequest<S extends TSchema = TSchema> extends UpstreamRequest {
  answer: S;
}

/** The client of a provider's upstream as one request uses it: its calls carry that request's id. */
export interface UpstreamClient {
  readonly baseUrl: string;
  /** Sends the request; a 2xx answers the parsed JSON body, anything else throws a GatewayError. */
  request<S extends TSchema>(request: CheckedRequest<S>): Promise<Static<S>>;
  request<T = unknown>(request: UpstreamRequest): Promise<T>;
}

/** One provider's upstream client, shared by every request: its pool, timeout and circuit breaker. */
export interface SharedUpstreamClient extends UpstreamClient {
  /**
   * The client as the request `requestId` uses it: each of its calls carries `X-Request-Id: <requestId>`, set after
   * the call's own headers. Calls made through the shared client itself carry no request id.
   */
  forRequest(requestId: string): UpstreamClient;
  close(): Promise<void>;
}

/**
 * The client as one request uses it when it holds an Idempotency-Key: each call that may change state (any method but
 * GET) carries an `Idempotency-Key` of `keyOf(n)` for its position n among them, so that a provider that honours the
 * header executes it once even when the gateway runs the request again (a takeover after a node stopped mid-request).
 */
export function withIdempotencyKeys(client: UpstreamClient, keyOf: (call: number) => string): UpstreamClient {
  let calls = 0;
  const request = async (call: UpstreamRequest) => {
    if ((call.method ?? "GET") === "GET") return client.request(call);
    const position = calls++;
    try {
      return await client.request({ ...call, headers: { ...call.headers, "idempotency-key": keyOf(position) } });
    } catch (error) {
      // A refused token (401) ran nothing, and the call is sent again with a refreshed one (withAccessToken): the
      // same call, so the same key. A takeover that finds the token fresh sends that call first, under this key.
      if (error instanceof GatewayError && credentialsRefused.has(error) && calls === position + 1) calls = position;
      throw error;
    }
  };
  return { baseUrl: client.baseUrl, request: request as UpstreamClient["request"] };
}

export interface UpstreamOptions {
  providerId: string;
  baseUrl: string;
  timeoutMs: number;
  errorMessage?: ((body: unknown) => string | undefined) | undefined;
  /** Observes every upstream call: metrics. */
  onCall?: (outcome: { providerId: string; status: number | "error"; seconds: number }) => void;
}

/** 502s made of a working provider's 4xx answers (a 429, a 401 to the gateway itself): they do not open the circuit. */
const answeredBy4xx = new WeakSet<GatewayError>();

interface RawResponse {
  status: number;
  body: unknown;
  retryAfter: string | undefined;
}

export function createUpstreamClient(options: UpstreamOptions): SharedUpstreamClient {
  const { providerId, timeoutMs } = options;
  const url = new URL(options.baseUrl);
  const basePath = url.pathname.replace(/\/$/, "");
  const pool = new Pool(url.origin, {
    connections: 64,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    // The call's deadline is kept by callUpstream (one sweep for all calls, no timer per request).
    headersTimeout: 0,
    bodyTimeout: 0,
    connectTimeout: Math.min(timeoutMs, 5_000),
  });
  const unavailable = (message: string, extra: GatewayErrorOptions = {}) =>
    new GatewayError("provider_unavailable", message, { provider: providerId, ...extra });

  async function send(
    request: UpstreamRequest & { answer?: TSchema },
    requestId: string | undefined,
  ): Promise<unknown> {
    const headers: Record<string, string> = { accept: "application/json", ...request.headers };
    if (requestId !== undefined) headers[upstreamRequestIdHeader] = requestId;
    let body: string | undefined;
    if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers["content-type"] = "application/json";
    }
    if (request.accessToken) headers.authorization = `Bearer ${request.accessToken}`;
    const started = performance.now();
    let raw: RawResponse;
    try {
      const response = await callUpstream(pool, {
        method: request.method ?? "GET",
        path: basePath + request.path + queryString(request.query),
        headers,
        body: body ?? null,
        timeoutMs,
        maxBytes: upstreamBodyLimitBytes,
      });
      options.onCall?.({ providerId, status: response.statusCode, seconds: (performance.now() - started) / 1000 });
      raw = { status: response.statusCode, body: parseJson(response.text), retryAfter: response.retryAfter };
    } catch (error) {
      options.onCall?.({ providerId, status: "error", seconds: (performance.now() - started) / 1000 });
      if (error instanceof UpstreamTooLargeError) {
        throw unavailable(`The ${providerId} provider answered more than ${upstreamBodyLimitBytes / 1024 / 1024} MiB`, {
          cause: error,
        });
      }
      const code = (error as { code?: string }).code ?? "";
      const timedOut = code.includes("TIMEOUT");
      const neverSent =
        code === "ECONNREFUSED" ||
        code === "UND_ERR_CONNECT_TIMEOUT" ||
        (error instanceof UpstreamTimeoutError && !error.sent);
      throw unavailable(
        timedOut
          ? `The ${providerId} provider did not answer within ${timeoutMs} ms`
          : `The ${providerId} provider could not be reached`,
        { cause: error, notExecuted: neverSent },
      );
    }
    if (raw.status >= 200 && raw.status < 300) {
      // 204 and 205 carry no body by definition. Any other 2xx is the API's answer only as JSON: a maintenance page, a
      // cut-off or an empty body is the provider failing (502, counted by the breaker), not data to map.
      const bodiless = raw.status === 204 || raw.status === 205;
      if (raw.body === notJson && !bodiless) {
        throw unavailable(`The ${providerId} provider answered HTTP ${raw.status} without a JSON body`);
      }
      const answer = raw.body === notJson ? null : raw.body;
      // A call that expects an answer of a schema gets none from a 204 either.
      if (request.answer)
        checkShape(request.answer, answer, `The answer to ${request.method ?? "GET"} ${request.path}`);
      return answer;
    }
    throw mapUpstreamError(providerId, raw, options.errorMessage, request.accessToken !== undefined);
  }

  // Network failures, 5xx and answers not of their schema open the circuit; 4xx and 429 answers are the provider
  // working as designed.
  const breaker = new CircuitBreaker(send, {
    timeout: false,
    errorThresholdPercentage: 50,
    volumeThreshold: 10,
    rollingCountTimeout: 10_000,
    resetTimeout: 5_000,
    // Only the counts decide; latency percentiles and per-second snapshots would sort every call's latency.
    rollingPercentilesEnabled: false,
    enableSnapshots: false,
    errorFilter: (error: unknown) =>
      !(
        error instanceof UnreadableAnswer ||
        (error instanceof GatewayError && error.status === 502 && !answeredBy4xx.has(error))
      ),
  });

  // The same call again (a refreshed token's retry) is another `request` through the same client: the same id.
  const requestOf = (requestId: string | undefined) =>
    (async (request: UpstreamRequest): Promise<unknown> => {
      try {
        return await breaker.fire(request, requestId);
      } catch (error) {
        if (error instanceof GatewayError) throw error;
        if ((error as { code?: string }).code === "EOPENBREAKER") {
          throw unavailable(`The ${providerId} provider is failing; calls are paused for a few seconds`, {
            retryAfterSeconds: 5,
            notExecuted: true,
          });
        }
        throw error;
      }
    }) as UpstreamClient["request"];

  const { baseUrl } = options;
  return {
    baseUrl,
    request: requestOf(undefined),
    forRequest: (requestId) => ({ baseUrl, request: requestOf(requestId) }),
    async close() {
      breaker.shutdown();
      await pool.close();
    },
  };
}

function mapUpstreamError(
  providerId: string,
  response: RawResponse,
  errorMessage: ((body: unknown) => string | undefined) | undefined,
  withConnection: boolean,
): GatewayError {
  // The answer is the provider's, not of the type its reader declares: its message is repeated only when it is text.
  const own = response.body === notJson ? undefined : errorMessage?.(response.body);
  const said = shortened(typeof own === "string" ? own : undefined);
  const message = (fallback: string) => (said ? `${fallback}: ${said}` : fallback);
  const provider = { provider: providerId };
  switch (true) {
    case response.status === 404:
      return new GatewayError("not_found", message(`The ${providerId} provider found no such resource`), provider);
    case response.status === 409:
      return new GatewayError("conflict", message(`The ${providerId} provider reported a conflict`), provider);
    case response.status === 422 || response.status === 403:
      return new GatewayError("provider_rejected", message(`The ${providerId} provider refused the request`), provider);
    case response.status === 429: {
      const seconds = retryAfterSeconds(response.retryAfter, Date.now());
      // A 429 is the provider declining the call before doing anything (RFC 6585): an Idempotency-Key stays free.
      const error = new GatewayError("provider_unavailable", message(`The ${providerId} provider is rate limiting`), {
        ...provider,
        retryable: true,
        notExecuted: true,
        ...(seconds !== undefined && { retryAfterSeconds: seconds }),
      });
      answeredBy4xx.add(error);
      return error;
    }
    case response.status === 401 && !withConnection: {
      // No connection's token was sent: the provider refuses the gateway itself, which the caller cannot mend.
      const error = new GatewayError(
        "provider_unavailable",
        message(`The ${providerId} provider refused the gateway's own access (HTTP 401)`),
        provider,
      );
      answeredBy4xx.add(error);
      return error;
    }
    case response.status === 401: {
      // The connection's token was refused: withAccessToken refreshes once and retries before this surfaces.
      const error = new GatewayError(
        "provider_rejected",
        message(`The ${providerId} provider refused the connection's credentials`),
        provider,
      );
      credentialsRefused.add(error);
      return error;
    }
    case response.status === 408:
      // The provider timing out on the request (SPEC §4: a provider timeout is a 502, retryable).
      return new GatewayError(
        "provider_unavailable",
        message(`The ${providerId} provider did not take the request in time (HTTP 408)`),
        provider,
      );
    case response.status >= 400 && response.status < 500:
      return new GatewayError("invalid_request", message(`The ${providerId} provider refused the input`), provider);
    default:
      return new GatewayError(
        "provider_unavailable",
        message(`The ${providerId} provider failed (HTTP ${response.status})`),
        provider,
      );
  }
}

/** The most of a provider's own error message an answer repeats. */
const maxProviderMessage = 300;

function shortened(message: string | undefined): string | undefined {
  if (message === undefined || message.length <= maxProviderMessage) return message;
  // Not between the two halves of a surrogate pair, which would leave a lone one (no character) in the answer.
  const end = /[\uD800-\uDBFF]/.test(message.charAt(maxProviderMessage - 2))
    ? maxProviderMessage - 2
    : maxProviderMessage - 1;
  return `${message.slice(0, end)}…`;
}

function queryString(query: UpstreamRequest["query"]): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** A provider's 2xx answer that is JSON but not of the shape its API documents. */
export class UnreadableAnswer extends TypeError {
  override name = "UnreadableAnswer";
}

// The first problem only: enough to refuse the answer and say why, and bounded for an answer of 16 MiB of wrong items.
const answerAjv = createAjv({ allErrors: false });
const answerValidators = new WeakMap<TSchema, ValidateFunction>();

/**
 * Throws an UnreadableAnswer unless `value` matches `schema` (a module-level schema: each is compiled once). For what
 * is made of a provider's answer before it is kept: `what` names it in the message.
 */
export function checkShape(schema: TSchema, value: unknown, what: string): void {
  let validate = answerValidators.get(schema);
  if (!validate) {
    validate = answerAjv.compile(schema);
    answerValidators.set(schema, validate);
  }
  if (validate(value)) return;
  const [problem] = validate.errors ?? [];
  const where = problem ? `${problem.instancePath || "/"} ${problem.message ?? "is invalid"}` : "is invalid";
  throw new UnreadableAnswer(`${what} does not match its schema: ${where}`);
}

/** What parseJson answers for a body that is not JSON (an empty one included). */
const notJson = Symbol("not JSON");

/** The body as JSON; notJson when it is not (an error's body is then read as text by errorMessage, if at all). */
function parseJson(text: string): unknown {
  if (text === "") return notJson;
  try {
    return JSON.parse(text);
  } catch {
    return notJson;
  }
}
