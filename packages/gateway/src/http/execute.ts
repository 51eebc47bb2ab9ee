// Runs one operation for an authenticated request: scopes, connection, input validation, the adapter, output check,
// and the success envelope. The uniform route and the resource aliases both come through here.
import type { FastifyRequest } from "fastify";
import { type BrokenRule, brokenRuleError, GatewayError, invalidRequest } from "../core/errors.ts";
import { pointerToken } from "../core/json-text.ts";
import type { CoreServices } from "../core/services.ts";
import { type CompiledOperation, fieldProblems } from "../providers/registry.ts";
import type { ConnectionContext, OperationContext, Pagination } from "../providers/types.ts";
import { type SharedUpstreamClient, withIdempotencyKeys } from "../providers/upstream.ts";
import { requireScope } from "./auth.ts";
import { sentMoreThanOnce } from "./raw-headers.ts";

export interface SuccessEnvelope {
  data: unknown;
  meta: { source: string; fetched_at: string };
  pagination: Pagination | null;
}

export interface ExecuteDeps {
  core: CoreServices;
  upstream(providerId: string): SharedUpstreamClient;
}

const connectionIdPattern = /^conn_[0-9A-Za-z]{22}$/;

/** A provider's answer the operation could not turn into its documented output; the error handler logs its cause. */
const unreadableAnswer = (providerId: string, cause?: unknown) =>
  new GatewayError("provider_unavailable", `The ${providerId} provider answered in a shape the gateway cannot read`, {
    provider: providerId,
    ...(cause !== undefined && { cause }),
  });

export async function executeOperation(
  deps: ExecuteDeps,
  request: FastifyRequest,
  compiled: CompiledOperation,
  input: Record<string, unknown>,
): Promise<SuccessEnvelope> {
  const { provider, operation } = compiled;
  const principal = request.principal;
  if (!principal) throw new GatewayError("unauthorized", "Missing API key: send `Authorization: Bearer <key>`");
  requireScope(principal, provider.id, operation.id);

  const connection = await connectionFor(deps.core, request, compiled, principal.accountId).catch((error: unknown) => {
    // The store failing while the connection is read (a 500): the operation has not begun, so an Idempotency-Key
    // stays free for the retry rather than replaying this 500 for a day. The gateway's own answers (404, 422) stand.
    if (!(error instanceof GatewayError)) request.notExecuted = true;
    throw error;
  });

  // A list's cursor is sealed to its account and operation (core/crypto/cursor-seal.ts): the adapter gets the inside.
  // One that does not open is a broken rule of the input, said with the other problems of the request.
  const cursorScope = `${principal.accountId}\n${provider.id}:${operation.id}`;
  let cursorRule: BrokenRule | undefined;
  if (typeof input.cursor === "string") {
    const cursor = deps.core.cursors.open(cursorScope, input.cursor);
    if (cursor === undefined) cursorRule = foreignCursor;
    else input = { ...input, cursor };
  }

  // Every call made for this request, a token refresh's retry included, carries its id (X-Request-Id).
  const upstream = deps.upstream(provider.id).forRequest(request.id);
  const claim = request.idempotencyClaim;
  const ctx: OperationContext = {
    requestId: request.id,
    accountId: principal.accountId,
    principal,
    providerId: provider.id,
    // Under an Idempotency-Key, the provider's state-changing calls carry keys derived from it.
    upstream: claim ? withIdempotencyKeys(upstream, claim.upstreamKey) : upstream,
    connection,
    resumed: claim?.resumed ?? false,
    core: deps.core,
    clock: deps.core.clock,
  };
  const { problems: schemaProblems, firstOnly } = compiled.inputProblems(input);
  // An input too large to list every problem of is refused by its schema's first; its rules are not run on it.
  if (firstOnly) throw invalidRequest(`The input of ${provider.id}:${operation.id} is invalid`, schemaProblems);
  // A rule about a field that already fails its schema judges a value that is wrong anyway (an impossible date is not
  // "later than now" either): only the schema's problem is said.
  const ruled = operation.check?.(input, ctx) ?? [];
  const checked = cursorRule ? [cursorRule, ...ruled] : ruled;
  const failing = schemaProblems.length === 0 ? undefined : new Set(schemaProblems.map((problem) => problem.path));
  const broken = failing ? checked.filter((rule) => !rule.problems.some((p) => failing.has(p.path))) : checked;
  if (schemaProblems.length > 0 || broken.length > 0) {
    // One rule broken, and nothing else: its own message says more than the general one.
    const only = schemaProblems.length === 0 && broken.length === 1 ? broken[0] : undefined;
    if (only) throw brokenRuleError(only);
    throw invalidRequest(`The input of ${provider.id}:${operation.id} is invalid`, [
      ...schemaProblems,
      ...broken.flatMap((rule) => rule.problems),
    ]);
  }

  // A provider with an upstream (all but the platform's and tests'): what it answers can be what its API does not.
  const fromUpstream = provider.sandbox !== undefined;
  let result: Awaited<ReturnType<typeof operation.handle>>;
  try {
    result = await operation.handle(input, ctx);
  } catch (error) {
    // A mapping that fails on the provider's answer (a field missing, a date that is not one), or an answer that does
    // not match the schema the call named (an UnreadableAnswer, a TypeError too), is the provider answering what its
    // API does not: a 502 with `provider`, as any other provider failure; the log keeps the cause.
    if (!(error instanceof TypeError || error instanceof RangeError) || !fromUpstream) throw error;
    throw unreadableAnswer(provider.id, error);
  }

  if (!compiled.validateOutput(result.data)) {
    // The error handler logs the failure once, with this cause: which fields broke the schema, and how.
    const problems = fieldProblems(compiled.validateOutput.errors).map((p) => `${p.path || "/"} ${p.message}`);
    const cause = new Error(`${provider.id}:${operation.id} output does not match its schema: ${problems.join("; ")}`);
    if (fromUpstream) throw unreadableAnswer(provider.id, cause);
    throw new GatewayError("internal_error", `The answer of ${provider.id}:${operation.id} did not match its schema`, {
      cause,
    });
  }
  return {
    data: result.data,
    meta: { source: provider.id, fetched_at: new Date(deps.core.clock.now()).toISOString() },
    pagination: result.pagination?.next_cursor
      ? { ...result.pagination, next_cursor: deps.core.cursors.seal(cursorScope, result.pagination.next_cursor) }
      : (result.pagination ?? null),
  };
}

const foreignCursor: BrokenRule = {
  message: "The cursor is not one this list returned",
  problems: [{ path: "/cursor", message: "is not valid" }],
  fix: "Pass pagination.next_cursor of the previous page unchanged, with the same key's account and operation.",
};

/**
 * A browser names its request's origin: `Origin` on every cross-origin request and on a same-origin one other than a GET
 * or HEAD, and `Sec-Fetch-Site` on every request of a current browser (a same-origin GET alias included), neither of
 * which a page's script can leave out. Not `Sec-Fetch-Mode`: Node's own fetch sends that one from server code.
 */
const sentByBrowser = (request: FastifyRequest) =>
  request.headers.origin !== undefined || request.headers["sec-fetch-site"] !== undefined;

async function connectionFor(
  core: CoreServices,
  request: FastifyRequest,
  { provider, operation }: CompiledOperation,
  accountId: string,
): Promise<ConnectionContext | undefined> {
  const header = request.headers["x-gateway-connection-id"];
  if (header !== undefined && sentByBrowser(request)) {
    throw invalidRequest(
      "X-Gateway-Connection-Id was sent from a browser (an Origin or Sec-Fetch-Site header is present): connection ids belong in server code only",
    );
  }
  if (operation.auth !== "credentials") return undefined;
  // A delegation token (console try-it-out) carries its connection server-side: the browser never holds the id.
  const delegated = request.principal?.connectionId;
  if ((header === undefined || header === "") && delegated !== undefined) {
    if (!core.connections) throw new GatewayError("internal_error", "Connections are not available on this gateway");
    return core.connections.resolveForCall({
      accountId,
      providerId: provider.id,
      connectionId: delegated,
      requestId: request.id,
    });
  }
  if (header === undefined || header === "") {
    throw invalidRequest(`${provider.id}:${operation.id} needs a connection: send the X-Gateway-Connection-Id header`, [
      { path: "/headers/x-gateway-connection-id", message: "is required" },
    ]);
  }
  if (typeof header !== "string" || !connectionIdPattern.test(header)) {
    // Node joins a repeated header's values with ", ": say so rather than call the joined ids malformed.
    if (sentMoreThanOnce(request.raw.rawHeaders, "x-gateway-connection-id")) {
      throw invalidRequest("X-Gateway-Connection-Id was sent more than once: send one connection id", [
        { path: "/headers/x-gateway-connection-id", message: "was sent more than once" },
      ]);
    }
    throw invalidRequest("X-Gateway-Connection-Id must be conn_ followed by 22 letters and digits", [
      { path: "/headers/x-gateway-connection-id", message: "is malformed" },
    ]);
  }
  if (!core.connections) throw new GatewayError("internal_error", "Connections are not available on this gateway");
  return core.connections.resolveForCall({
    accountId,
    providerId: provider.id,
    connectionId: header,
    requestId: request.id,
  });
}

/**
 * Names the operation of a /v1 request and checks the key's scopes for it: run by each operation route's
 * preValidation hook, so before the extensions' preHandlers. A 404 or a 403 is then answered before an
 * Idempotency-Key is claimed or replayed: a replay never hands a key the stored answer of an operation its scopes do
 * not allow, and a request that reached no operation leaves its key free. Answers the hook's error, if any.
 */
export function admitOperation(request: FastifyRequest, compiled: CompiledOperation): GatewayError | undefined {
  const { provider, operation } = compiled;
  request.operation = compiled;
  request.operationLabel = { provider: provider.id, operation: operation.id };
  const principal = request.principal;
  if (!principal) return new GatewayError("unauthorized", "Missing API key: send `Authorization: Bearer <key>`");
  try {
    requireScope(principal, provider.id, operation.id);
  } catch (error) {
    return error as GatewayError;
  }
  return undefined;
}

/**
 * An operation's input is its JSON body (and an alias's path): a query string would be ignored, so a caller who put
 * `?limit=1` there would get the default page without a word. It is refused, each parameter named.
 */
export function refuseQueryParameters(request: FastifyRequest, hint = ""): void {
  if (!request.url.includes("?")) return;
  const query = Object.keys((request.query ?? {}) as Record<string, unknown>);
  if (query.length === 0) return;
  throw invalidRequest(
    `${request.method} ${request.url.split("?")[0]} takes no query parameters${hint}`,
    query.map((name) => ({ path: `/query/${pointerToken(name)}`, message: "is not an allowed parameter" })),
  );
}

/** The operation admitOperation named for this request. */
export function requestOperation(request: FastifyRequest): CompiledOperation {
  const compiled = request.operation;
  if (!compiled) throw new GatewayError("internal_error", "The route named no operation");
  return compiled;
}
