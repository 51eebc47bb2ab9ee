// GatewayClient: one method per operation, grouped by provider and built from the generated operation table, plus
// `call` for any operation by id and `operations()` for the catalogue. Every request goes through one retry loop
// (retry-policy.ts) with an Idempotency-Key that stays the same across the retries of a call.
import { type OperationTypes, operationTable, type ProviderClients } from "../operations.generated.ts";
import { abortableSleep } from "./abort.ts";
import type { OperationsCatalogue } from "./catalogue-types.ts";
import { checkedHeaderValue, checkedIdempotencyKey } from "./header-values.ts";
import { newIdempotencyKey } from "./idempotency-key.ts";
import { DEFAULT_MAX_RETRIES, type HttpMethod, isRepeatable, retryDelayMs } from "./retry-policy.ts";
import { sendAttempt } from "./transport.ts";
import type { CallOptions, FetchLike, GatewayClientOptions, OperationResponse, ResponseMeta } from "./types.ts";
import { SDK_VERSION } from "./version.ts";

export const DEFAULT_TIMEOUT_MS = 30_000;

interface OperationInfo {
  method: string;
  auth: "none" | "credentials";
  readOnly: boolean;
  createsState: boolean;
}

type ProviderId = keyof OperationTypes;
type InputOf<P extends ProviderId, O extends keyof OperationTypes[P]> = OperationTypes[P][O] extends { input: infer I }
  ? I
  : never;
type OutputOf<P extends ProviderId, O extends keyof OperationTypes[P]> = OperationTypes[P][O] extends {
  output: infer T;
}
  ? T
  : never;
/** The input may be left out when it has no required field. */
type CallArguments<I> =
  Record<string, never> extends I ? [input?: I, options?: CallOptions] : [input: I, options?: CallOptions];

interface RequestPlan {
  method: HttpMethod;
  path: string;
  body?: unknown;
  headers: Record<string, string>;
  repeatable: boolean;
  options: CallOptions | undefined;
}

const table: Readonly<Record<string, Readonly<Record<string, OperationInfo>>>> = operationTable;

class BaseGatewayClient {
  readonly #apiKey: string;
  readonly #baseUrl: string;
  readonly #connectionId: string | undefined;
  readonly #maxRetries: number;
  readonly #timeoutMs: number;
  readonly #fetch: FetchLike;
  readonly #userAgent: string;
  readonly #random: () => number;
  readonly #sleep: (ms: number, signal: AbortSignal | undefined) => Promise<void>;

  constructor(options: GatewayClientOptions) {
    if (typeof options?.apiKey !== "string" || options.apiKey === "") throw new TypeError("apiKey is required");
    if (!usableBaseUrl(options.baseUrl)) {
      // The URL is not repeated: it may carry a password.
      throw new TypeError(
        "baseUrl must be an http(s) URL without credentials, query or fragment, e.g. https://gateway.example.com",
      );
    }
    this.#apiKey = checkedHeaderValue("apiKey", options.apiKey);
    this.#baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#connectionId =
      options.connectionId === undefined ? undefined : checkedHeaderValue("connectionId", options.connectionId);
    this.#maxRetries = checkedCount("maxRetries", options.maxRetries ?? DEFAULT_MAX_RETRIES);
    this.#timeoutMs = checkedTimeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== "function") throw new TypeError("No fetch in this runtime: pass options.fetch");
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    const suffix = options.userAgent ? ` ${checkedHeaderValue("userAgent", options.userAgent)}` : "";
    this.#userAgent = `provider-gateway-sdk-js/${SDK_VERSION}${suffix}`;
    this.#random = options.random ?? Math.random;
    this.#sleep = options.sleep ?? abortableSleep;
    for (const [providerId, operations] of Object.entries(table)) {
      const group: Record<string, (input?: unknown, options?: CallOptions) => Promise<unknown>> = {};
      for (const [operationId, info] of Object.entries(operations)) {
        group[info.method] = (input, callOptions) => this.#operation(providerId, operationId, info, input, callOptions);
      }
      Object.defineProperty(this, providerId, { value: Object.freeze(group), enumerable: true });
    }
  }

  /** Any operation by provider and operation id; typed for the operations this SDK version knows. */
  call<P extends ProviderId, O extends keyof OperationTypes[P] & string>(
    provider: P,
    operation: O,
    ...args: CallArguments<InputOf<P, O>>
  ): Promise<OperationResponse<OutputOf<P, O>>>;
  /**
   * An operation this SDK version does not know yet (added to the gateway later): `data` is untyped. A known
   * operation never takes this form, so that its input is checked against its type rather than passed as any object.
   */
  call<P extends string, O extends string>(
    provider: P,
    operation: O & (P extends ProviderId ? (O extends keyof OperationTypes[P] ? never : O) : O),
    input?: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<OperationResponse<unknown>>;
  call(provider: string, operation: string, input?: unknown, options?: CallOptions): Promise<unknown> {
    return this.#operation(provider, operation, table[provider]?.[operation], input, options);
  }

  /** GET /v1/operations: every provider and operation the gateway serves, with auth mode and JSON Schemas. */
  async operations(
    options: Pick<CallOptions, "signal" | "timeoutMs" | "maxRetries"> = {},
  ): Promise<OperationsCatalogue> {
    const headers = this.#headers();
    const plan = { method: "GET" as const, path: "/v1/operations", headers, repeatable: true, options };
    const { body } = await this.#send(plan);
    return body.data as OperationsCatalogue;
  }

  async #operation(
    provider: string,
    operation: string,
    info: OperationInfo | undefined,
    input: unknown,
    options: CallOptions | undefined,
  ): Promise<OperationResponse<unknown>> {
    const headers = this.#headers();
    headers["content-type"] = "application/json";
    const connectionId =
      options?.connectionId ?? (info === undefined || info.auth === "credentials" ? this.#connectionId : undefined);
    if (info?.auth === "credentials" && connectionId === undefined) {
      throw new TypeError(
        `${provider}:${operation} acts on a connected account: pass { connectionId } to the call or to the client`,
      );
    }
    if (connectionId !== undefined) {
      headers["x-gateway-connection-id"] = checkedHeaderValue("connectionId", connectionId);
    }
    const ownKey = options?.idempotencyKey;
    const idempotencyKey =
      ownKey == null ? (info?.createsState ? newIdempotencyKey() : undefined) : checkedIdempotencyKey(ownKey);
    if (idempotencyKey !== undefined) headers["idempotency-key"] = idempotencyKey;
    const repeatable = isRepeatable({ method: "POST", readOnly: info?.readOnly ?? false, idempotencyKey });
    const path = `/v1/${encodeURIComponent(provider)}/${encodeURIComponent(operation)}`;
    const { body, requestId } = await this.#send({
      method: "POST",
      path,
      body: input ?? {},
      headers,
      repeatable,
      options,
    });
    return {
      data: body.data,
      meta: body.meta as ResponseMeta,
      pagination: (body.pagination ?? null) as OperationResponse<unknown>["pagination"],
      requestId,
    };
  }

  #headers(): Record<string, string> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.#apiKey}`, accept: "application/json" };
    // Browsers own User-Agent; everywhere else (Node, Deno, Bun, workers) it says which client called.
    if (typeof (globalThis as { document?: unknown }).document === "undefined") headers["user-agent"] = this.#userAgent;
    return headers;
  }

  /** The attempts of one request: the same headers (Idempotency-Key included) each time, waits in between. */
  async #send(plan: RequestPlan): Promise<{ body: Record<string, unknown>; requestId: string | null }> {
    const signal = plan.options?.signal;
    const maxRetries = checkedCount("maxRetries", plan.options?.maxRetries ?? this.#maxRetries);
    const timeoutMs = checkedTimeout(plan.options?.timeoutMs ?? this.#timeoutMs);
    const body = plan.body === undefined ? undefined : JSON.stringify(plan.body);
    const url = `${this.#baseUrl}${plan.path}`;
    for (let retry = 0; ; retry++) {
      signal?.throwIfAborted();
      const outcome = await sendAttempt({
        url,
        method: plan.method,
        headers: plan.headers,
        body,
        timeoutMs,
        signal,
        fetch: this.#fetch,
      });
      if (outcome.ok) return outcome;
      // A replayed answer (the stored outcome of the first processing under this key) is never retryable.
      const delay = retryDelayMs(outcome.error, {
        retry,
        maxRetries,
        repeatable: plan.repeatable,
        random: this.#random,
      });
      if (delay === undefined) throw outcome.error;
      await this.#sleep(delay, signal);
    }
  }
}

function checkedCount(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) throw new RangeError(`${name} must be a whole number ≥ 0`);
  return value;
}

/** Whether fetch can send to paths under this URL: http(s), and nothing a path cannot follow or fetch refuses. */
function usableBaseUrl(value: unknown): value is string {
  if (typeof value !== "string" || !/^https?:\/\//i.test(value)) return false;
  try {
    const url = new URL(value);
    return url.username === "" && url.password === "" && url.search === "" && url.hash === "" && !/[?#]/.test(value);
  } catch {
    return false;
  }
}

/** The longest delay a timer keeps (2^31 - 1 ms, about 24.8 days); a longer one would fire at once. */
const maxTimeoutMs = 2_147_483_647;

function checkedTimeout(value: number): number {
  if (!Number.isFinite(value) || value <= 0 || value > maxTimeoutMs) {
    throw new RangeError(`timeoutMs must be a positive number of milliseconds, at most ${maxTimeoutMs}`);
  }
  return value;
}

/** The client: `client.<provider>.<operation>(input, options)` for every operation, `call`, and `operations()`. */
export type GatewayClient = BaseGatewayClient & ProviderClients;

export const GatewayClient = BaseGatewayClient as new (options: GatewayClientOptions) => GatewayClient;
