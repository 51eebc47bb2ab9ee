// The back-channel endpoints: token (authorization_code with PKCE S256, refresh_token with rotation and reuse
// detection), revocation (RFC 7009) and the server metadata (RFC 8414) that clients discover the endpoints from.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { OAuthContext } from "./context.ts";
import { formOf, REPEATED, safeEqual, sha256Base64Url } from "./http.ts";
import type { Grant, OAuthClientRegistration } from "./types.ts";

const verifierPattern = /^[A-Za-z0-9._~-]{43,128}$/;

class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}

function sendOAuthError(reply: FastifyReply, failure: OAuthError): FastifyReply {
  if (failure.status === 401) reply.header("www-authenticate", 'Basic realm="sandbox"');
  return reply
    .code(failure.status)
    .header("cache-control", "no-store")
    .send({ error: failure.error, error_description: failure.description });
}

/** client_secret_basic or client_secret_post, exactly one of them (RFC 6749 §2.3). */
function authenticateClient(ctx: OAuthContext, request: FastifyRequest, form: Record<string, string>) {
  const header = request.headers.authorization;
  let id: string | undefined;
  let secret: string | undefined;
  if (header?.startsWith("Basic ")) {
    if (form.client_secret !== undefined)
      throw new OAuthError("invalid_request", "Use one client authentication method");
    const decoded = Buffer.from(header.slice(6), "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, " "));
    if (colon > 0) [id, secret] = [decode(decoded.slice(0, colon)), decode(decoded.slice(colon + 1))];
  } else {
    [id, secret] = [form.client_id, form.client_secret];
  }
  const client = id === undefined ? undefined : ctx.clients.get(id);
  if (!client || secret === undefined || !safeEqual(secret, client.clientSecret)) {
    throw new OAuthError("invalid_client", "Client authentication failed", 401);
  }
  return client;
}

function issueTokens(ctx: OAuthContext, grant: Grant, withRefresh: boolean) {
  const access = ctx.state.issueToken("access", grant.id, ctx.accessTokenTtlSeconds);
  const refresh = withRefresh ? ctx.state.issueToken("refresh", grant.id, ctx.refreshTokenTtlSeconds) : undefined;
  return {
    access_token: access.token,
    token_type: "Bearer",
    expires_in: ctx.accessTokenTtlSeconds,
    ...(refresh && { refresh_token: refresh.token }),
    scope: grant.scopes.join(" "),
  };
}

function exchangeCode(ctx: OAuthContext, client: OAuthClientRegistration, form: Record<string, string>) {
  const { code, redirect_uri: redirectUri, code_verifier: verifier } = form;
  if (!code || !redirectUri || !verifier) {
    throw new OAuthError("invalid_request", "code, redirect_uri and code_verifier are required");
  }
  const record = ctx.state.codes.get(code);
  if (!record) throw new OAuthError("invalid_grant", "The authorization code is not valid");
  if (record.used) {
    // A replayed code may be stolen: whatever the first exchange issued is revoked too (RFC 6749 §4.1.2).
    if (record.grantId) ctx.state.revokeGrant(record.grantId);
    throw new OAuthError("invalid_grant", "The authorization code was already used");
  }
  record.used = true; // consumed by any attempt, so that a verifier cannot be guessed over several tries
  if (record.expiresAt <= ctx.now()) throw new OAuthError("invalid_grant", "The authorization code has expired");
  if (record.clientId !== client.clientId)
    throw new OAuthError("invalid_grant", "The code was issued to another client");
  if (record.redirectUri !== redirectUri) throw new OAuthError("invalid_grant", "redirect_uri does not match");
  if (!verifierPattern.test(verifier) || !safeEqual(sha256Base64Url(verifier), record.codeChallenge)) {
    throw new OAuthError("invalid_grant", "PKCE verification failed: code_verifier does not match the challenge");
  }
  const grant = ctx.state.newGrant(client.clientId, record.userId, record.scopes);
  record.grantId = grant.id;
  ctx.state.stats.authorization_code += 1;
  return issueTokens(ctx, grant, true);
}

function refresh(ctx: OAuthContext, client: OAuthClientRegistration, form: Record<string, string>) {
  const presented = form.refresh_token;
  if (!presented) throw new OAuthError("invalid_request", "refresh_token is required");
  const reusedGrant = ctx.state.rotated.get(presented);
  if (reusedGrant) {
    ctx.state.revokeGrant(reusedGrant);
    throw new OAuthError("invalid_grant", "The refresh token was already used; the grant is revoked");
  }
  const live = ctx.state.liveToken(presented, "refresh");
  if (!live || live.grant.clientId !== client.clientId) {
    throw new OAuthError("invalid_grant", "The refresh token is not valid, expired or revoked");
  }
  if (form.scope?.split(" ").some((s) => !live.grant.scopes.includes(s))) {
    throw new OAuthError("invalid_scope", "A refresh cannot widen the granted scopes");
  }
  ctx.state.stats.refresh_token += 1;
  if (!ctx.rotateRefreshTokens) return { ...issueTokens(ctx, live.grant, false), refresh_token: presented };
  live.token.revoked = true;
  ctx.state.rotated.set(presented, live.grant.id);
  return issueTokens(ctx, live.grant, true);
}

export function registerTokenRoutes(app: FastifyInstance, ctx: OAuthContext): void {
  app.post("/oauth/token", async (request, reply) => {
    const form = formOf(request);
    try {
      if (Object.values(form).includes(REPEATED)) throw new OAuthError("invalid_request", "A parameter is repeated");
      const client = authenticateClient(ctx, request, form);
      let body: object;
      if (form.grant_type === "authorization_code") body = exchangeCode(ctx, client, form);
      else if (form.grant_type === "refresh_token") body = refresh(ctx, client, form);
      else throw new OAuthError("unsupported_grant_type", "Use authorization_code or refresh_token");
      return reply.header("cache-control", "no-store").header("pragma", "no-cache").send(body);
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      ctx.state.stats.refused += 1;
      return sendOAuthError(reply, error);
    }
  });

  app.post("/oauth/revoke", async (request, reply) => {
    const form = formOf(request);
    try {
      const client = authenticateClient(ctx, request, form);
      if (!form.token) throw new OAuthError("invalid_request", "token is required");
      const token = ctx.state.tokens.get(form.token);
      const grant = token && ctx.state.grants.get(token.grantId);
      // Unknown tokens and other clients' tokens answer 200 as well (RFC 7009 §2.2): nothing to learn here.
      if (token && grant?.clientId === client.clientId) {
        if (token.kind === "refresh") ctx.state.revokeGrant(grant.id);
        else token.revoked = true;
      }
      return reply.code(200).header("cache-control", "no-store").send();
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      return sendOAuthError(reply, error);
    }
  });

  app.get("/.well-known/oauth-authorization-server", async (request) => {
    const issuer = ctx.issuerOf(request);
    return {
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      revocation_endpoint: `${issuer}/oauth/revoke`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      scopes_supported: Object.keys(ctx.scopes),
      authorization_response_iss_parameter_supported: true,
    };
  });
}
