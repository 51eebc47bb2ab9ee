// The hosted connect surface: GET /connect/{token} (start page), POST /connect/{token} (binds the browser with a
// cookie and redirects to the provider's authorization endpoint), GET /connect/callback (the OAuth redirect URI).
// Browsers get HTML pages here, never the API's JSON envelope; nothing shown or put in a URL names the connection.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ConnectFailure } from "../../core/connections/connect-sessions.ts";
import { GatewayError } from "../../core/errors.ts";
import type { CoreServices } from "../../core/services.ts";
import type { Registry } from "../../providers/registry.ts";
import { errorPage, failurePage, startPage, successPage } from "./pages.ts";

export interface ConnectRoutesOptions {
  core: CoreServices;
  registry: Registry;
}

const cookieName = "gateway_connect";

function readCookie(request: FastifyRequest): string | undefined {
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const [name, value] = part.trim().split("=");
    if (name === cookieName && value && /^[0-9A-Za-z]{32}$/.test(value)) return value;
  }
  return undefined;
}

function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply
    .code(status)
    .header("content-type", "text/html; charset=utf-8")
    .header("cache-control", "no-store")
    .header("referrer-policy", "no-referrer")
    .header("x-frame-options", "DENY")
    .header("x-content-type-options", "nosniff")
    .header(
      "content-security-policy",
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
    )
    .send(body);
}

export function connectRoutes(options: ConnectRoutesOptions) {
  const { core, registry } = options;
  const secure = core.publicUrl.startsWith("https://");
  const title = (providerId: string | undefined) =>
    (providerId && registry.provider(providerId)?.title) || "the provider";
  const accountName = async (accountId: string) => (await core.accounts.get(accountId))?.name ?? accountId;
  const fail = (reply: FastifyReply, failure: ConnectFailure, providerId: string | undefined) => {
    const { status, html: body } = failurePage(failure, title(providerId));
    return html(reply, status, body);
  };
  const setBinding = (reply: FastifyReply, value: string, maxAge: number) =>
    reply.header(
      "set-cookie",
      `${cookieName}=${value}; Path=/connect; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`,
    );

  return async function plugin(app: FastifyInstance): Promise<void> {
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
            return fail(reply, "provider_unavailable", error.provider);
          }
          // Two tabs starting the same session at once: the second finds it changed under it.
          if (error instanceof GatewayError && error.code === "conflict") return fail(reply, "already_used", undefined);
          request.log.error({ err: error, request_id: request.id }, "connect flow failed");
          return html(reply, 500, errorPage());
        }
      };

    app.get(
      "/connect/callback",
      guarded(async (request, reply) => {
        const outcome = await sessions().complete(new URL(request.url, core.publicUrl), readCookie(request));
        if (!outcome.ok) return fail(reply, outcome.failure, outcome.session?.provider_id);
        setBinding(reply, "", 0);
        const { session, replaced } = outcome;
        return html(
          reply,
          200,
          successPage(await accountName(session.account_id), title(session.provider_id), replaced),
        );
      }),
    );

    app.get<{ Params: { token: string } }>(
      "/connect/:token",
      { config: { logRoutePattern: true } },
      guarded<{ token: string }>(async (request, reply) => {
        const opened = await sessions().open(request.params.token, readCookie(request));
        if (opened.ok !== "open") return fail(reply, opened.failure, opened.session?.provider_id);
        const { session } = opened;
        const body = startPage(await accountName(session.account_id), title(session.provider_id), request.url);
        return html(reply, 200, body);
      }),
    );

    app.post<{ Params: { token: string } }>(
      "/connect/:token",
      { config: { logRoutePattern: true } },
      guarded<{ token: string }>(async (request, reply) => {
        const opened = await sessions().open(request.params.token, readCookie(request));
        if (opened.ok !== "open") return fail(reply, opened.failure, opened.session?.provider_id);
        const { authorizationUrl, browser } = await sessions().start(opened.session, readCookie(request));
        setBinding(reply, browser, Math.ceil((opened.session.expires_at - core.clock.now()) / 1000));
        return reply
          .code(303)
          .header("cache-control", "no-store")
          .header("location", authorizationUrl.toString())
          .send();
      }),
    );
  };
}
