// In-memory state of one sandbox authorization server: login sessions, pending authorization requests, codes,
// grants and tokens. Everything expires by the server's clock; nothing survives a restart (a sandbox's users log in
// again, and the gateway's connections go to needs_reauth, as they would against a provider that lost its grants).

import { randomToken } from "./http.ts";
import type { AuthorizationCode, AuthorizationRequest, Grant, IssuedToken, TokenOwner } from "./types.ts";

export const CODE_TTL_MS = 60_000;
export const REQUEST_TTL_MS = 10 * 60_000;
export const SESSION_TTL_MS = 60 * 60_000;

export class OAuthState {
  readonly sessions = new Map<string, { userId: string; expiresAt: number }>();
  readonly requests = new Map<string, AuthorizationRequest>();
  readonly codes = new Map<string, AuthorizationCode>();
  readonly grants = new Map<string, Grant>();
  readonly tokens = new Map<string, IssuedToken>();
  /** Refresh tokens retired by rotation: presenting one again revokes its grant (refresh token reuse detection). */
  readonly rotated = new Map<string, string>();
  /** Token endpoint outcomes by grant type, read by tests (`GET /_sandbox/oauth/stats`). */
  readonly stats = { authorization_code: 0, refresh_token: 0, refused: 0, revoked: 0 };

  constructor(
    private readonly now: () => number,
    private readonly tokenPrefix: string,
  ) {}

  sessionUser(sessionId: string | undefined): string | undefined {
    const session = sessionId === undefined ? undefined : this.sessions.get(sessionId);
    if (!session || session.expiresAt <= this.now()) return undefined;
    return session.userId;
  }

  startSession(userId: string): string {
    const id = randomToken("sess_");
    this.sessions.set(id, { userId, expiresAt: this.now() + SESSION_TTL_MS });
    return id;
  }

  pendingRequest(id: string | undefined): AuthorizationRequest | undefined {
    const request = id === undefined ? undefined : this.requests.get(id);
    if (!request || request.expiresAt <= this.now()) return undefined;
    return request;
  }

  issueCode(request: AuthorizationRequest, userId: string): string {
    const code = randomToken("code_");
    this.codes.set(code, {
      code,
      clientId: request.clientId,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      userId,
      scopes: request.scopes,
      expiresAt: this.now() + CODE_TTL_MS,
      used: false,
      grantId: undefined,
    });
    this.requests.delete(request.id);
    return code;
  }

  newGrant(clientId: string, userId: string, scopes: string[]): Grant {
    const grant: Grant = { id: randomToken("grant_", 12), clientId, userId, scopes, revoked: false };
    this.grants.set(grant.id, grant);
    return grant;
  }

  issueToken(kind: IssuedToken["kind"], grantId: string, ttlSeconds: number): IssuedToken {
    const token: IssuedToken = {
      token: randomToken(`${this.tokenPrefix}_${kind === "access" ? "at" : "rt"}_`, 32),
      kind,
      grantId,
      expiresAt: this.now() + ttlSeconds * 1000,
      revoked: false,
    };
    this.tokens.set(token.token, token);
    return token;
  }

  /** A usable token of that kind: known, not revoked, not expired, and its grant still standing. */
  liveToken(value: string, kind: IssuedToken["kind"]): { token: IssuedToken; grant: Grant } | undefined {
    const token = this.tokens.get(value);
    if (!token || token.kind !== kind || token.revoked || token.expiresAt <= this.now()) return undefined;
    const grant = this.grants.get(token.grantId);
    if (!grant || grant.revoked) return undefined;
    return { token, grant };
  }

  owner(accessToken: string): TokenOwner | undefined {
    const live = this.liveToken(accessToken, "access");
    if (!live) return undefined;
    return { userId: live.grant.userId, clientId: live.grant.clientId, scopes: live.grant.scopes };
  }

  /** Revokes a whole grant: its refresh token family and every access token issued under it. */
  revokeGrant(grantId: string): void {
    const grant = this.grants.get(grantId);
    if (!grant || grant.revoked) return;
    grant.revoked = true;
    this.stats.revoked += 1;
    for (const token of this.tokens.values()) if (token.grantId === grantId) token.revoked = true;
  }

  /** What a user does under "connected apps → remove": every grant of that user ends. Answers how many. */
  revokeUserGrants(userId: string): number {
    const mine = [...this.grants.values()].filter((g) => g.userId === userId && !g.revoked);
    for (const grant of mine) this.revokeGrant(grant.id);
    return mine.length;
  }

  /** Ends every live access token of a user early (the refresh tokens stay): tests of transparent refresh. */
  expireAccessTokens(userId: string): number {
    let count = 0;
    for (const token of this.tokens.values()) {
      const grant = this.grants.get(token.grantId);
      if (token.kind === "access" && !token.revoked && grant?.userId === userId && token.expiresAt > this.now()) {
        token.expiresAt = this.now();
        count += 1;
      }
    }
    return count;
  }

  /** Drops what has expired, so that a long-running sandbox does not grow. */
  sweep(): void {
    const now = this.now();
    for (const [key, value] of this.codes) if (value.expiresAt <= now - CODE_TTL_MS) this.codes.delete(key);
    for (const [key, value] of this.requests) if (value.expiresAt <= now) this.requests.delete(key);
    for (const [key, value] of this.sessions) if (value.expiresAt <= now) this.sessions.delete(key);
    for (const [key, value] of this.tokens) if (value.expiresAt <= now) this.tokens.delete(key);
    for (const [key, grantId] of this.rotated)
      if (this.grants.get(grantId)?.revoked !== false) this.rotated.delete(key);
  }
}
