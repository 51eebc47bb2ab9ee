// When a failed attempt is tried again, and after how long: GET and DELETE
// always; POST only with an Idempotency-Key or when read-only; only failures flagged retryable (network errors and
// timeouts, 429, 502 unless replayed, the 409 of a key still in progress); exponential backoff with full jitter, or
// the server's Retry-After when it sent one.
import type { GatewayError } from "../errors.ts";

export type HttpMethod = "GET" | "POST" | "DELETE";

export const DEFAULT_MAX_RETRIES = 3;
export const BACKOFF_BASE_MS = 500;
export const BACKOFF_CAP_MS = 8_000;
/** A Retry-After longer than this is not waited for: the error goes to the caller, who can schedule the retry. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Whether repeating the request can never do its work twice. */
export function isRepeatable(request: { method: HttpMethod; readOnly: boolean; idempotencyKey: string | undefined }) {
  if (request.method === "GET" || request.method === "DELETE") return true;
  return request.readOnly || request.idempotencyKey !== undefined;
}

/** Full jitter: uniform in [0, min(cap, base · 2^retry)). `retry` counts from 0 for the first retry. */
export function backoffMs(retry: number, random: () => number): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/**
 * The wait before retry number `retry` (from 0) after `error`, or undefined when it must not be retried: not
 * retryable, the request is not repeatable, the retries are used up, or Retry-After asks for more than a minute.
 */
export function retryDelayMs(
  error: GatewayError,
  context: { retry: number; maxRetries: number; repeatable: boolean; random: () => number },
): number | undefined {
  if (!error.retryable || !context.repeatable || context.retry >= context.maxRetries) return undefined;
  if (error.retryAfterSeconds !== null) {
    const ms = error.retryAfterSeconds * 1000;
    return ms > MAX_RETRY_AFTER_MS ? undefined : ms;
  }
  return backoffMs(context.retry, context.random);
}
