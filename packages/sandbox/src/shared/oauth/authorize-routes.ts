// The browser side of the authorization server: GET /oauth/authorize, the login form and the consent form. Errors
// about the client or its redirect URI are shown as a page (never redirected, RFC 6749 §4.1.2.1); every other
// error, and a refused consent, goes back to the client's redirect URI with `error`, `state` and `iss` (RFC 9207).
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type OAuthContext, redirectUriAllowed } from "./context.ts";
import { formOf, randomToken, readCookie, sendPage, setCookie } from "./http.ts";
import { consentPage, errorPage, loginPage } from "./pages.ts";
import { REQUEST_TTL_MS, SESSION_TTL_MS } from "./state.ts";
import type { AuthorizationRequest } from "./types.ts";

const challengePattern = /^[A-Za-z0-9_-]{43}$/;

function redirectBack(
  reply: FastifyReply,
  request: Pick<AuthorizationRequest, "redirectUri" | "state" | "issuer">,
  params: Record<string, string>,
): FastifyReply {
  const url = new URL(request.redirectUri);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  if (request.state !== undefined) url.searchParams.set("state", request.state);
  url.searchParams.set("iss", request.issuer);
  return reply.code(303).header("cache-control", "no-store").redirect(url.toString(), 303);
}

export function registerAuthorizeRoutes(app: FastifyInstance, ctx: OAuthContext): void {
  const page = (reply: FastifyReply, status: number, title: string, message: string) =>
    sendPage(reply, status, errorPage(ctx.siteName, title, message));
  const clientName = (id: string) => ctx.clients.get(id)?.name ?? id;
  const userOf = (request: FastifyRequest) => ctx.state.sessionUser(readCookie(request, ctx.sessionCookie));

  const showConsent = (reply: FastifyReply, pending: AuthorizationRequest, userId: string) => {
    const user = ctx.users.find((u) => u.id === userId);
    const scopes = pending.scopes.map((scope) => ({ scope, description: ctx.scopes[scope] ?? scope }));
    const html = consentPage(
      ctx.siteName,
      pending.id,
      pending.consentToken,
      clientName(pending.clientId),
      user?.displayName ?? userId,
      scopes,
    );
    return sendPage(reply, 200, html);
  };
  const expired = (reply: FastifyReply) =>
    page(
      reply,
      400,
      "Request expired",
      "This sign-in request has expired or was already used. Start again from the app.",
    );

  app.get<{ Querystring: Record<string, string> }>("/oauth/authorize", async (request, reply) => {
    const q = request.query;
    const client = q.client_id ? ctx.clients.get(q.client_id) : undefined;
    if (!client)
      return page(reply, 400, "Unknown application", "The application that sent you here is not registered.");
    if (!q.redirect_uri || !redirectUriAllowed(client, q.redirect_uri)) {
      return page(reply, 400, "Invalid redirect", "The application's redirect address is not registered.");
    }
    const back = { redirectUri: q.redirect_uri, state: q.state, issuer: ctx.issuerOf(request) };
    if (q.response_type !== "code") {
      return redirectBack(reply, back, {
        error: "unsupported_response_type",
        error_description: "Only code is supported",
      });
    }
    if (q.code_challenge_method !== "S256" || !challengePattern.test(q.code_challenge ?? "")) {
      return redirectBack(reply, back, {
        error: "invalid_request",
        error_description: "PKCE is required: code_challenge (43 base64url characters) with code_challenge_method=S256",
      });
    }
    const scopes = q.scope ? [...new Set(q.scope.split(" ").filter(Boolean))] : Object.keys(ctx.scopes);
    const unknown = scopes.filter((s) => !(s in ctx.scopes));
    if (unknown.length > 0) {
      return redirectBack(reply, back, { error: "invalid_scope", error_description: `Unknown scope ${unknown[0]}` });
    }
    const pending: AuthorizationRequest = {
      id: randomToken("areq_", 16),
      clientId: client.clientId,
      redirectUri: q.redirect_uri,
      state: q.state,
      scopes,
      codeChallenge: q.code_challenge as string,
      issuer: back.issuer,
      expiresAt: ctx.now() + REQUEST_TTL_MS,
      consentToken: randomToken("", 16),
    };
    ctx.state.sweep();
    ctx.state.requests.set(pending.id, pending);
    const userId = userOf(request);
    if (userId) return showConsent(reply, pending, userId);
    return sendPage(reply, 200, loginPage(ctx.siteName, pending.id, client.name));
  });

  app.post("/oauth/login", async (request, reply) => {
    const form = formOf(request);
    const pending = ctx.state.pendingRequest(form.request_id);
    if (!pending) return expired(reply);
    const user = ctx.users.find((u) => u.username === form.username && u.password === form.password);
    if (!user) {
      const html = loginPage(ctx.siteName, pending.id, clientName(pending.clientId), "Wrong username or password.");
      return sendPage(reply, 401, html);
    }
    setCookie(reply, ctx.sessionCookie, ctx.state.startSession(user.id), SESSION_TTL_MS / 1000);
    return reply.redirect(`/oauth/consent?request_id=${encodeURIComponent(pending.id)}`, 303);
  });

  app.get<{ Querystring: { request_id?: string } }>("/oauth/consent", async (request, reply) => {
    const pending = ctx.state.pendingRequest(request.query.request_id);
    if (!pending) return expired(reply);
    const userId = userOf(request);
    if (!userId) return sendPage(reply, 200, loginPage(ctx.siteName, pending.id, clientName(pending.clientId)));
    return showConsent(reply, pending, userId);
  });

  app.post("/oauth/consent", async (request, reply) => {
    const form = formOf(request);
    const pending = ctx.state.pendingRequest(form.request_id);
    if (!pending) return expired(reply);
    const userId = userOf(request);
    if (!userId || form.consent_token !== pending.consentToken) {
      return page(reply, 403, "Not allowed", "Sign in again and answer the consent question on this site.");
    }
    if (form.decision !== "allow") {
      ctx.state.requests.delete(pending.id);
      return redirectBack(reply, pending, { error: "access_denied", error_description: "The user refused access" });
    }
    return redirectBack(reply, pending, { code: ctx.state.issueCode(pending, userId) });
  });
}
