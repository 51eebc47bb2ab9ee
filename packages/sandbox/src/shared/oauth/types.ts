// Configuration and records of the sandbox OAuth 2.0 authorization server (RFC 6749 with PKCE, RFC 7009, RFC 8414).

export interface OAuthClientRegistration {
  clientId: string;
  clientSecret: string;
  /** Shown to the user on the login and consent pages. */
  name: string;
  /** Exact redirect URIs; undefined accepts any http(s) URI without a fragment (sandbox convenience). */
  redirectUris?: string[];
}

export interface SandboxUser {
  id: string;
  username: string;
  password: string;
  displayName: string;
}

export interface OAuthServerOptions {
  /** Shown on the login and consent pages. */
  siteName: string;
  /** scope → what it allows, shown on the consent page. */
  scopes: Record<string, string>;
  /** Prefix of issued tokens, e.g. "smk" gives "smk_at_…" and "smk_rt_…". */
  tokenPrefix: string;
  /** Milliseconds since the epoch; tests pass a fake clock. */
  now?: () => number;
  /** Lifetime of access tokens (default SANDBOX_ACCESS_TOKEN_TTL_S or 900 s). */
  accessTokenTtlSeconds?: number;
  /** Lifetime of refresh tokens (default 30 days). */
  refreshTokenTtlSeconds?: number;
  /** Issue a new refresh token at each refresh and retire the old one (default true). */
  rotateRefreshTokens?: boolean;
  clients?: OAuthClientRegistration[];
  users?: SandboxUser[];
  /** Fixed issuer; by default `http://<Host header>`, i.e. the address the sandbox was reached at. */
  issuer?: string;
}

export interface AuthorizationRequest {
  id: string;
  clientId: string;
  redirectUri: string;
  state: string | undefined;
  scopes: string[];
  codeChallenge: string;
  issuer: string;
  expiresAt: number;
  /** Binds the consent form to the login session that saw it (CSRF). */
  consentToken: string;
}

export interface AuthorizationCode {
  code: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  userId: string;
  scopes: string[];
  expiresAt: number;
  used: boolean;
  /** The grant it started, so that a replayed code revokes what the first exchange issued (RFC 6749 §4.1.2). */
  grantId: string | undefined;
}

/** One user's authorization of one client: the refresh token family and the access tokens issued under it. */
export interface Grant {
  id: string;
  clientId: string;
  userId: string;
  scopes: string[];
  revoked: boolean;
}

export interface IssuedToken {
  token: string;
  kind: "access" | "refresh";
  grantId: string;
  expiresAt: number;
  revoked: boolean;
}

/** What a protected resource learns from a valid bearer token. */
export interface TokenOwner {
  userId: string;
  clientId: string;
  scopes: string[];
}

export type BearerCheck =
  | { ok: true; owner: TokenOwner }
  | { ok: false; error: "invalid_token" | "insufficient_scope"; description: string };
