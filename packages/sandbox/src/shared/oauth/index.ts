// The sandbox OAuth 2.0 authorization server, mounted into any sandbox whose provider has credentials operations:
//   const oauth = registerOAuthServer(app, { siteName, scopes, tokenPrefix });
//   app.addHook("preHandler", …oauth.verifyBearer(request, "cart")…)   // on the provider's protected routes
// It serves /oauth/authorize (login + consent pages), /oauth/token, /oauth/revoke,
// /.well-known/oauth-authorization-server, and test controls under /_sandbox/oauth/.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { registerAuthorizeRoutes } from "./authorize-routes.ts";
import { createOAuthContext, DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, DEFAULT_USERS } from "./context.ts";
import { registerFormParser } from "./http.ts";
import { registerTokenRoutes } from "./token-routes.ts";
import type { BearerCheck, OAuthServerOptions } from "./types.ts";

export type { BearerCheck, OAuthClientRegistration, OAuthServerOptions, SandboxUser, TokenOwner } from "./types.ts";
export { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, DEFAULT_USERS };

export interface OAuthServer {
  /** Checks `Authorization: Bearer <access token>` and, when given, that the grant includes `scope`. */
  verifyBearer(request: FastifyRequest, scope?: string): BearerCheck;
  /** Ends every grant of the user (refresh and access tokens): the user removed the app. Answers how many. */
  revokeUserGrants(username: string): number;
  /** Expires the user's live access tokens now; refresh tokens stay valid. */
  expireAccessTokens(username: string): number;
  stats(): { authorization_code: number; refresh_token: number; refused: number; revoked: number };
}

export function registerOAuthServer(app: FastifyInstance, options: OAuthServerOptions): OAuthServer {
  const ctx = createOAuthContext(options);
  const userId = (username: string) => ctx.users.find((u) => u.username === username)?.id;

  app.register(async (scope) => {
    registerFormParser(scope);
    registerAuthorizeRoutes(scope, ctx);
    registerTokenRoutes(scope, ctx);
  });

  const server: OAuthServer = {
    verifyBearer(request, scope) {
      const match = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? "");
      if (!match?.[1]) return { ok: false, error: "invalid_token", description: "A bearer access token is required" };
      const owner = ctx.state.owner(match[1]);
      if (!owner) return { ok: false, error: "invalid_token", description: "The access token is invalid or expired" };
      if (scope !== undefined && !owner.scopes.includes(scope)) {
        return { ok: false, error: "insufficient_scope", description: `The token lacks the scope ${scope}` };
      }
      return { ok: true, owner };
    },
    revokeUserGrants: (username) => {
      const id = userId(username);
      return id === undefined ? 0 : ctx.state.revokeUserGrants(id);
    },
    expireAccessTokens: (username) => {
      const id = userId(username);
      return id === undefined ? 0 : ctx.state.expireAccessTokens(id);
    },
    stats: () => ({ ...ctx.state.stats }),
  };

  app.get("/_sandbox/oauth/stats", async () => server.stats());
  app.post<{ Body: { username?: string } }>("/_sandbox/oauth/revoke-grants", async (request) => ({
    revoked: server.revokeUserGrants(request.body?.username ?? "demo"),
  }));
  app.post<{ Body: { username?: string } }>("/_sandbox/oauth/expire-access-tokens", async (request) => ({
    expired: server.expireAccessTokens(request.body?.username ?? "demo"),
  }));
  return server;
}

/** The `WWW-Authenticate` value a protected resource sends with its 401/403 (RFC 6750 §3). */
export const bearerChallenge = (check: Extract<BearerCheck, { ok: false }>): string =>
  `Bearer realm="sandbox", error="${check.error}", error_description="${check.description}"`;
