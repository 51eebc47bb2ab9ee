// The hosted connect surface: GET /connect/{token} (start page), POST /connect/{token} (binds the browser with a
// cookie and redirects to the provider's authorization endpoint), GET /connect/callback (the OAuth redirect URI).
// Browsers get HTML pages here, never the API's JSON envelope; nothing shown or put in a URL names the connection.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ConnectFailure } from "../../core/connections/connect-sessions.ts";
import { GatewayError } from "../../core/errors.ts";
import { randomBase62 } from "../../core/ids.ts";
import type { CoreServices } from "../../core/services.ts";
import type { Registry } from "../../providers/registry.ts";
import type { ConnectSessionsTable } from "../../store/schema.ts";
import { requireSameOrigin } from "../console/session-guard.ts";
import { type BindingOf, bindingCookies, proposedBinding, setBindingCookie } from "./binding.ts";
import { registerConnectFallbacks } from "./fallback.ts";
import { errorPage, failurePage, sendPage, startPage, successPage, unusableRequestPage } from "./pages.ts";

export interface ConnectRoutesOptions {
  core: CoreServices;
  registry: Registry;
}

/**
 * Whether a POST comes from another site, by the console's Origin and Sec-Fetch-Site rules. The connect pages send no
 * Referer, so a browser posts their own form with `Origin: null`: that value names no site and is left to
 * Sec-Fetch-Site (cross-site when another site's page chose to send no Referer either).
 */
function crossSite(request: FastifyRequest, publicUrl: string): boolean {
  const origin = request.headers.origin === "null" ? undefined : request.headers.origin;
  const seen = { method: request.method, protocol: request.protocol, headers: { ...request.headers, origin } };
  try {
    requireSameOrigin(seen as FastifyRequest, publicUrl);
    return false;
  } catch (error) {
    if (error instanceof GatewayError && error.code === "scope_denied") return true;
    throw error;
  }
}

export function connectRoutes(options: ConnectRoutesOptions) {
  const { core, registry } = options;
  const secure = core.publicUrl.startsWith("https://");
  const title = (providerId: string | undefined) =>
    (providerId && registry.provider(providerId)?.title) || "the provider";
  const accountName = async (accountId: string) => (await core.accounts.get(accountId))?.name ?? accountId;
  const fail = (reply: FastifyReply, failure: ConnectFailure, providerId: string | undefined) => {
    const { status, html: body } = failurePage(failure, title(providerId));
    return sendPage(reply, status, body);
  };
  const bind = (reply: FastifyReply, session: ConnectSessionsTable, value: string) =>
    setBindingCookie(reply, session, value, Math.ceil((session.expires_at - core.clock.now()) / 1000), secure);
  /** The start page; its form proposes the binding this browser already holds for the session, or a new one. */
  const showStart = async (
    request: FastifyRequest,
    reply: FastifyReply,
    session: ConnectSessionsTable,
    held = bindingCookies(request)(session),
  ) => {
    const binding = held ?? randomBase62(32);
    const body = startPage(await accountName(session.account_id), title(session.provider_id), request.url, binding);
    return sendPage(reply, 200, body);
  };

  /** A provider's authorization server failed the flow: the page says so in words, the log says what happened. */
  const logProviderFailure = (request: FastifyRequest, cause: unknown, provider: string | undefined) =>
    request.log.warn({ err: cause, request_id: request.id, provider }, "the provider's authorization server failed");

  return async function plugin(app: FastifyInstance): Promise<void> {
    registerConnectFallbacks(app);
    const sessions = () => {
      if (!core.connectSessions) throw new GatewayError("internal_error", "Connections are not available");
      return core.connectSessions;
    };
    // One place for what went wrong: the provider's server unreachable, or anything unexpected (logged).
    const guarded =
      <P>(handler: (request: FastifyRequest<{ Params: P }>, reply: FastifyReply) => Promise<FastifyReply>) =>
      async (request: FastifyRequest<{ Params: P }>, reply: FastifyReply) => {
        try {
          return await handler(request, reply);
        } catch (error) {
          if (error instanceof GatewayError && error.code === "provider_unavailable") {
            logProviderFailure(request, error.cause ?? error, error.provider);
            return fail(reply, "provider_unavailable", error.provider);
          }
          // Unless said once already for every answer (a node whose master keys the store refuses).
          if (!(error instanceof GatewayError && error.logged)) {
            request.log.error({ err: error, request_id: request.id }, "connect flow failed");
          }
          return sendPage(reply, 500, errorPage());
        }
      };

    /** What opening the link shows: the start page, or why it cannot be used. Changes nothing. */
    const showLink = async (request: FastifyRequest, reply: FastifyReply, token: string) => {
      const opened = await sessions().open(token, bindingCookies(request));
      if (opened.ok !== "open") return fail(reply, opened.failure, opened.session?.provider_id);
      return showStart(request, reply, opened.session);
    };

    app.get(
      "/connect/callback",
      guarded(async (request, reply) => {
        const callback = new URL(request.url, core.publicUrl);
        const outcome = await sessions().complete(callback, bindingCookies(request), request.id);
        // A flow that ended, either way, has no further use for its cookie.
        const ended = outcome.ok || !["unknown_link", "other_browser", "already_used"].includes(outcome.failure);
        if (ended && outcome.session) setBindingCookie(reply, outcome.session, "", 0, secure);
        if (!outcome.ok) {
          if (outcome.cause !== undefined) logProviderFailure(request, outcome.cause, outcome.session?.provider_id);
          return fail(reply, outcome.failure, outcome.session?.provider_id);
        }
        const { session, replaced } = outcome;
        return sendPage(
          reply,
          200,
          successPage(await accountName(session.account_id), title(session.provider_id), replaced),
        );
      }),
    );

    app.get<{ Params: { token: string } }>(
      "/connect/:token",
      { config: { logRoutePattern: true } },
      guarded<{ token: string }>(async (request, reply) => showLink(request, reply, request.params.token)),
    );

    app.post<{ Params: { token: string } }>(
      "/connect/:token",
      { config: { logRoutePattern: true } },
      guarded<{ token: string }>(async (request, reply) => {
        const { token } = request.params;
        // The callback's address has a link's shape too; it takes GET only.
        if (token === "callback") return sendPage(reply.header("allow", "GET, HEAD"), 405, unusableRequestPage());
        // Another site's form would skip the page that names who asks for access: it gets that page instead.
        if (crossSite(request, core.publicUrl)) return showLink(request, reply, token);
        // The form's binding proves the browser as well as the cookie does: the page gave it to this browser only.
        const held = bindingCookies(request);
        const proposed = proposedBinding(request.body);
        const bindingOf: BindingOf = (session) => held(session) ?? proposed;
        const opened = await sessions().open(token, bindingOf);
        if (opened.ok !== "open") return fail(reply, opened.failure, opened.session?.provider_id);
        const { session } = opened;
        const binding = bindingOf(session);
        const started = await sessions().start(session, binding);
        if (started) {
          bind(reply, session, started.browser);
          return reply
            .code(303)
            .header("cache-control", "no-store")
            .header("location", started.authorizationUrl.toString())
            .send();
        }
        // Another Continue of this session won the race (a double click, two tabs): if it bound the same binding (the
        // same page's form), this browser may go on; it gets its cookie and the start page again.
        const now = await sessions().open(token, () => binding);
        if (now.ok !== "open") return fail(reply, now.failure, now.session?.provider_id);
        if (binding !== undefined) bind(reply, now.session, binding);
        return showStart(request, reply, now.session, binding);
      }),
    );
  };
}
