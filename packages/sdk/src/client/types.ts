// The shapes the client takes and returns: its options, the per-call options, and the success envelope.

/** What `fetch` the client needs: the global one, or any compatible implementation (undici, a test double). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface GatewayClientOptions {
  /** `gwk_…` (or a `gwd_…` delegation token), sent as `Authorization: Bearer <apiKey>`. Server code only. */
  apiKey: string;
  /** The gateway's base URL, e.g. `https://gateway.example.com` (no `/v1`). */
  baseUrl: string;
  /** Default connection (`conn_…`) for operations that need one; a call's own `connectionId` wins. */
  connectionId?: string | undefined;
  /** Retries after the first attempt, for retryable failures only. Default 3. */
  maxRetries?: number | undefined;
  /** Limit of each attempt, response body included; past it the attempt fails as a retryable timeout. Default 30000. */
  timeoutMs?: number | undefined;
  /** Default: the global `fetch`. */
  fetch?: FetchLike | undefined;
  /** Appended to the SDK's User-Agent, e.g. `"checkout-service/2.3"`. */
  userAgent?: string | undefined;
  /** Random number in [0, 1) for backoff jitter. Default `Math.random`; tests make it fixed. */
  random?: (() => number) | undefined;
  /** Waits between attempts; must reject with `signal.reason` when the signal aborts. Tests replace it. */
  sleep?: ((ms: number, signal: AbortSignal | undefined) => Promise<void>) | undefined;
}

export interface CallOptions {
  /** The connection to act on (`conn_…`), for operations in auth mode `credentials`. */
  connectionId?: string | undefined;
  /**
   * Sent as `Idempotency-Key`: 1 to 255 printable ASCII characters, else the call throws a TypeError before sending.
   * Operations that change state get a fresh UUID when this is absent; every retry of the call reuses the same key,
   * so the gateway executes the operation at most once. Pass your own to make a retry across processes (after a
   * crash) safe as well. `null` counts as absent, so that `error.idempotencyKey` (null for a call that sent none)
   * can be passed back as it is.
   */
  idempotencyKey?: string | null | undefined;
  /** Cancels the call: the request in flight and any wait before a retry. The promise rejects with `signal.reason`. */
  signal?: AbortSignal | undefined;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number | undefined;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number | undefined;
}

export interface Pagination {
  /** Pass as `cursor` to get the next page; null on the last page. */
  next_cursor: string | null;
  has_more: boolean;
}

export interface ResponseMeta {
  /** The provider that answered. */
  source: string;
  /** ISO 8601 time the data was fetched. */
  fetched_at: string;
}

/** The success envelope of every operation, `data` typed by the operation's output schema. */
export interface OperationResponse<TData> {
  data: TData;
  meta: ResponseMeta;
  /** null when the result is not paginated. */
  pagination: Pagination | null;
  /** The `X-Request-Id` of the answer: quote it to support. */
  requestId: string | null;
}
