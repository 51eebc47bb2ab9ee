// What a provider is: an id, an upstream, and operations whose schemas drive validation, the catalogue, the OpenAPI
// document and the SDK. The core never names a concrete provider; registry.ts lists them.
import type { Static, TSchema } from "@sinclair/typebox";
import type { Principal } from "../core/api-keys.ts";
import type { Clock } from "../core/clock.ts";
import type { BrokenRule } from "../core/errors.ts";
import type { RecordEventInput, StoreExecutor } from "../core/events/events.ts";
import type { CoreServices } from "../core/services.ts";
import type { UpstreamClient } from "./upstream.ts";

/** `none`: the API key alone; `credentials`: also a Connection (header X-Gateway-Connection-Id). */
export type AuthMode = "none" | "credentials";

export interface Pagination {
  next_cursor: string | null;
  has_more: boolean;
}

export interface OperationResult<T> {
  data: T;
  pagination?: Pagination | null;
}

/** The connection a credentials-mode call runs under, with a fresh access token. */
export interface ConnectionContext {
  id: string;
  externalRef: string;
  accessToken: string;
}

export interface OperationContext {
  requestId: string;
  accountId: string;
  principal: Principal;
  providerId: string;
  /** The provider's upstream API; platform operations have none. */
  upstream: UpstreamClient;
  connection: ConnectionContext | undefined;
  /**
   * The request takes over its Idempotency-Key from a run that stopped mid-request (a node died): what that run did
   * at the provider may already show (a copy's status changed by the provider's hook).
   */
  resumed: boolean;
  core: CoreServices;
  clock: Clock;
}

/** An input before its schema's verdict: the fields the schema names, each of any type. */
export type UncheckedInput<T> = { readonly [K in keyof T]?: unknown };

export interface OperationDefinition<I extends TSchema = TSchema, O extends TSchema = TSchema> {
  id: string;
  summary: string;
  description?: string;
  auth: AuthMode;
  /** A read-only POST: safe to repeat without an Idempotency-Key. */
  readOnly: boolean;
  lifecycle: "stable" | "beta" | "deprecated";
  version: string;
  input: I;
  output: O;
  /** A request and its answer, validated against the schemas by the registry test. */
  example: { input: Static<I>; output: Static<O> };
  /**
   * The input's rules beyond its schema. It runs beside the schema, whatever the schema's verdict, so that one 400
   * lists every problem of a request: each rule looks only at fields of the type it expects.
   */
  check?(input: UncheckedInput<Static<I>>, ctx: OperationContext): BrokenRule[];
  /**
   * A body is needed although the schema requires no field, because `check` refuses an empty one (one of two fields
   * must be given): see `inputRequired`.
   */
  inputRequired?: boolean;
  handle(input: Static<I>, ctx: OperationContext): Promise<OperationResult<Static<O>>>;
}

/** An inbound hook from the provider's upstream (POST /hooks/{provider_id}), verified and seen for the first time. */
export interface HookEvent {
  /** The provider's own event id: a hook with an id already processed is not handed over again. */
  id: string;
  type: string;
  created_at?: string;
  data: Record<string, unknown>;
}

export interface HookContext {
  /** The transaction the hook is processed in: state changes written with it commit with the events. */
  trx: StoreExecutor;
  providerId: string;
  core: CoreServices;
  clock: Clock;
  upstream: UpstreamClient;
}

export interface HookResult {
  /** Gateway events to record (each with the account it belongs to), in the same transaction. */
  events?: RecordEventInput[];
}

/**
 * An extra route under /v1/{provider_id} that runs one of the provider's operations (a REST-style resource path, e.g.
 * `{ method: "GET", path: "/reservations/:reservation_id", operation: "get_reservation" }`). `:name` segments fill
 * the input property of that name; a POST also takes its body as input, GET and DELETE take the path alone. Auth,
 * scopes, rate limits, Idempotency-Key (POST), validation, envelope and errors are those of the operation.
 */
export interface ResourceAlias {
  method: "GET" | "POST" | "DELETE";
  path: string;
  operation: string;
}

export interface ProviderDefinition {
  id: string;
  title: string;
  description: string;
  /** Name of the sandbox in @provider-gateway/sandbox started when no upstream URL is configured. */
  sandbox?: string;
  /** Extracts a human message from the upstream's own error body, for error envelopes. */
  upstreamErrorMessage?: (body: unknown) => string | undefined;
  /**
   * Providers with credentials operations: connections are made with an OAuth 2.0 authorization-code flow (PKCE)
   * against the provider's authorization server, found at GATEWAY_OAUTH_<ID>_ISSUER or else at the upstream URL.
   */
  oauth?: { scopes: readonly string[] };
  /** Recursive or shared schemas with an `$id`, referenced from operations with Type.Ref. */
  schemas?: TSchema[];
  operations: OperationDefinition[];
  /** Resource paths that run operations (see ResourceAlias); checked by the registry. */
  aliases?: ResourceAlias[];
  /** Turns an inbound hook of the provider into state changes and gateway events (providers with pushed changes). */
  handleHook?(event: HookEvent, ctx: HookContext): Promise<HookResult>;
}

/** Keeps the operation's input and output types tied to its schemas while erasing them for the registry. */
export function defineOperation<I extends TSchema, O extends TSchema>(
  operation: Omit<OperationDefinition<I, O>, "lifecycle" | "version" | "readOnly"> &
    Partial<Pick<OperationDefinition<I, O>, "lifecycle" | "version" | "readOnly">>,
): OperationDefinition {
  return { lifecycle: "stable", version: "1.0.0", readOnly: false, ...operation } as unknown as OperationDefinition;
}

export const defineProvider = (provider: ProviderDefinition): ProviderDefinition => provider;

/**
 * Whether a call needs input: its schema requires a field, or its `check` refuses an empty one (`inputRequired`). The
 * catalogue (`input_required`), the OpenAPI document (a required request body) and the SDK's signatures say it alike.
 * `schema` is what the body carries: the input, or what is left of it on a resource path that carries some fields.
 */
export const inputRequired = (operation: OperationDefinition, schema: TSchema = operation.input): boolean =>
  operation.inputRequired === true || ((schema as { required?: string[] }).required ?? []).length > 0;
