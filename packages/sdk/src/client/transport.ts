// One HTTP attempt: fetch under the attempt's signal (caller's abort or per-attempt timeout), the whole body read
// inside the time limit, and the outcome as the success envelope or the GatewayError of the answer. A caller's
// abort is not an outcome: it rejects with the signal's reason, as fetch itself does.
import { errorFromResponse } from "../error-from-response.ts";
import { GatewayConnectionError, GatewayError } from "../errors.ts";
import { attemptSignal } from "./abort.ts";
import type { HttpMethod } from "./retry-policy.ts";
import type { FetchLike } from "./types.ts";

export interface AttemptRequest {
  url: string;
  method: HttpMethod;
  headers: Record<string, string>;
  body: string | undefined;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  fetch: FetchLike;
}

export type AttemptOutcome =
  | { ok: true; body: Record<string, unknown>; requestId: string | null }
  | { ok: false; error: GatewayError };

export async function sendAttempt(request: AttemptRequest): Promise<AttemptOutcome> {
  const attempt = attemptSignal(request.timeoutMs, request.signal);
  const idempotencyKey = request.headers["idempotency-key"];
  try {
    const response = await request.fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body !== undefined && { body: request.body }),
      // Following one would turn the POST into a GET (301, 302) or drop the API key (another origin): the gateway
      // would answer a confusing 400 or 401. The redirect is the error instead, naming where it points.
      redirect: "manual",
      signal: attempt.signal,
    });
    const text = await response.text();
    const requestId = response.headers.get("x-request-id");
    if (response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400)) {
      return { ok: false, error: redirectError(response, requestId, idempotencyKey) };
    }
    if (!response.ok) {
      const body = withoutCredential(text, request.headers.authorization);
      return { ok: false, error: errorFromResponse(response.status, body, response.headers, { idempotencyKey }) };
    }
    const body = parseObject(text);
    // Every answer of the gateway has `data`; a JSON object without it (a proxy's or a stub's) is not one.
    if (body === undefined || !Object.hasOwn(body, "data")) {
      const what = body === undefined ? "a body that is not a JSON object" : "a JSON object without `data`";
      const message = `The gateway answered HTTP ${response.status} with ${what}`;
      const error = new GatewayError({
        code: "invalid_response",
        status: response.status,
        message,
        requestId,
        retryable: false,
        idempotencyKey,
      });
      return { ok: false, error };
    }
    return { ok: true, body, requestId };
  } catch (cause) {
    if (request.signal?.aborted) throw request.signal.reason;
    const message = attempt.timedOut
      ? `No complete answer from ${request.method} ${request.url} within ${request.timeoutMs} ms`
      : `${request.method} ${request.url} failed: ${describeFailure(cause)}`;
    return {
      ok: false,
      error: new GatewayConnectionError({ message, timedOut: attempt.timedOut, idempotencyKey, cause }),
    };
  } finally {
    attempt.done();
  }
}

/** A redirect, not followed: the base URL is not the gateway's own (http:// for https://, a moved host or path). */
function redirectError(response: Response, requestId: string | null, idempotencyKey: string | undefined): GatewayError {
  const location = response.headers.get("location");
  return new GatewayError({
    code: `http_${response.status}`,
    status: response.status,
    message: `The gateway answered with a redirect${location ? ` to ${location}` : ""}, which the SDK does not follow`,
    fix: "Set baseUrl to the gateway's own URL (the one the redirect points at, e.g. https:// rather than http://).",
    requestId,
    retryable: false,
    idempotencyKey,
  });
}

/**
 * The error body with the caller's API key blanked out. The gateway never repeats it, but a proxy or a mistaken base URL
 * may echo the request's headers in its error page, and error messages end up in logs. A credential shorter than a
 * real key is left alone: blanking a few common characters would garble the envelope's code.
 */
function withoutCredential(text: string, authorization: string | undefined): string {
  const credential = authorization?.replace(/^Bearer /, "");
  return credential !== undefined && credential.length >= 8 ? text.replaceAll(credential, "[redacted]") : text;
}

/** fetch's own message ("fetch failed") with the reason underneath it, such as ECONNREFUSED or a TLS error. */
function describeFailure(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const inner = (cause as Error & { cause?: { code?: unknown; message?: unknown } }).cause;
  const reason = typeof inner?.code === "string" ? inner.code : typeof inner?.message === "string" ? inner.message : "";
  return reason && !cause.message.includes(reason) ? `${cause.message} (${reason})` : cause.message;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
