// The gateway as an OAuth 2.0 client of one provider's authorization server, through oauth4webapi: metadata
// discovery (RFC 8414), the authorization URL with PKCE S256 and state, the code exchange, refresh and revocation
// (RFC 7009). Failures become GatewayErrors; a refused refresh is told apart so the connection can need re-auth.
import * as oauth from "oauth4webapi";
import { GatewayError } from "../errors.ts";
import { retryAfterSeconds } from "../retry-after.ts";
import { upstreamRequestIdHeader } from "../upstream-request-id.ts";

export interface OAuthClientConfig {
  providerId: string;
  /** The authorization server's issuer identifier (its metadata lives under /.well-known/). */
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: readonly string[];
  redirectUri: string;
  timeoutMs: number;
}

export interface TokenSet {
  accessToken: string;
  refreshToken: string | undefined;
  /** Absolute expiry in ms, or null when the server did not say. */
  expiresAt: number | null;
  scopes: string[];
}

/** OAuth errors (RFC 6749, RFC 8628) that say the server cannot answer for now, not that the request is refused. */
const passing = new Set(["temporarily_unavailable", "server_error", "slow_down"]);

/** How long discovered metadata is used before it is read again (a server's endpoints can move). */
const metadataLifetimeMs = 3_600_000;

/** The provider refused the refresh token (invalid_grant): only the end user can repair the connection. */
export class RefreshRefused extends Error {}

/** The provider answered a refresh with tokens the gateway cannot use; the grant was revoked. */
export class RefreshUnusable extends RefreshRefused {}

/** The largest answer taken from an authorization server: its metadata and token answers are a few KiB. */
export const maxAuthorizationAnswerBytes = 1024 * 1024;

/**
 * fetch, with the answer's body read whole, up to maxAuthorizationAnswerBytes: a longer one (by Content-Length, or
 * as it arrives) is refused unread, as a provider's API answer over its limit is, rather than held in memory.
 */
async function boundedFetch(
  url: string,
  options: oauth.CustomFetchOptions<string, URLSearchParams | undefined>,
): Promise<Response> {
  const response = await fetch(url, options as RequestInit);
  const declared = Number(response.headers.get("content-length") ?? 0);
  if (declared > maxAuthorizationAnswerBytes) {
    await response.body?.cancel();
    throw new Error(`The answer is ${declared} bytes long, more than ${maxAuthorizationAnswerBytes}`);
  }
  const chunks: Uint8Array[] = [];
  let length = 0;
  const reader = response.body?.getReader();
  for (let read = await reader?.read(); reader && read && !read.done; read = await reader.read()) {
    length += read.value.length;
    if (length > maxAuthorizationAnswerBytes) {
      await reader.cancel().catch(() => {});
      throw new Error(`The answer is longer than ${maxAuthorizationAnswerBytes} bytes`);
    }
    chunks.push(read.value);
  }
  const bodiless = response.status === 204 || response.status === 205 || response.status === 304;
  return new Response(bodiless ? null : Buffer.concat(chunks), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

export class ProviderOAuthClient {
  private metadata: Promise<oauth.AuthorizationServer> | undefined;
  private metadataUntil = 0;
  private readonly client: oauth.Client;
  private readonly auth: oauth.ClientAuth;
  private readonly http: {
    signal: () => AbortSignal;
    [oauth.customFetch]: typeof boundedFetch;
    [oauth.allowInsecureRequests]: boolean;
  };

  constructor(private readonly config: OAuthClientConfig) {
    this.client = { client_id: config.clientId };
    this.auth = oauth.ClientSecretBasic(config.clientSecret);
    this.http = {
      signal: () => AbortSignal.timeout(config.timeoutMs),
      [oauth.customFetch]: boundedFetch,
      // Plain http only where the operator configured it (the loopback sandboxes in development and tests).
      [oauth.allowInsecureRequests]: config.issuer.startsWith("http://"),
    };
  }

  get providerId(): string {
    return this.config.providerId;
  }

  /**
   * The options of a call made for the gateway request `requestId`, which it carries in X-Request-Id; a call of the
   * gateway's own (metadata discovery, read once an hour for every caller) carries none.
   */
  private httpFor(requestId: string | undefined, timeoutMs?: number) {
    const http = timeoutMs === undefined ? this.http : { ...this.http, signal: () => AbortSignal.timeout(timeoutMs) };
    return requestId === undefined ? http : { ...http, headers: { [upstreamRequestIdHeader]: requestId } };
  }

  /**
   * The server metadata, discovered once and kept for an hour; a failed discovery, or metadata without the
   * authorization and token endpoints the gateway needs, is not kept: the next caller discovers again.
   */
  server(): Promise<oauth.AuthorizationServer> {
    if (!this.metadata || performance.now() > this.metadataUntil) {
      const issuer = new URL(this.config.issuer);
      this.metadataUntil = performance.now() + metadataLifetimeMs;
      const discovered = oauth
        .discoveryRequest(issuer, { ...this.http, algorithm: "oauth2" })
        .then((response) => oauth.processDiscoveryResponse(issuer, response))
        .then((server) => {
          const missing = (["authorization_endpoint", "token_endpoint"] as const).filter((name) => !server[name]);
          if (missing.length > 0) throw new Error(`the metadata has no ${missing.join(" nor ")}`);
          return server;
        })
        .catch((error: unknown) => {
          if (this.metadata === discovered) this.metadata = undefined;
          throw this.unavailable("could not be discovered", error);
        });
      this.metadata = discovered;
    }
    return this.metadata;
  }

  async authorizationUrl(state: string, codeVerifier: string): Promise<URL> {
    const server = await this.server();
    if (!server.authorization_endpoint) throw this.unavailable("has no authorization endpoint", undefined);
    const url = new URL(server.authorization_endpoint);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("client_id", this.config.clientId);
    url.searchParams.set("redirect_uri", this.config.redirectUri);
    url.searchParams.set("scope", this.config.scopes.join(" "));
    url.searchParams.set("state", state);
    url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(codeVerifier));
    url.searchParams.set("code_challenge_method", "S256");
    return url;
  }

  /**
   * Checks the callback (state, iss, error) and exchanges the code. Throws AuthorizationDenied for an error the
   * end user or the provider put in the callback, GatewayError for a failed exchange.
   */
  async exchangeCode(
    callback: URL,
    expectedState: string,
    codeVerifier: string,
    now: () => number,
    requestId?: string,
  ): Promise<TokenSet> {
    const server = await this.server();
    let params: URLSearchParams;
    try {
      params = oauth.validateAuthResponse(server, this.client, callback.searchParams, expectedState);
    } catch (error) {
      if (error instanceof oauth.AuthorizationResponseError) {
        // A server that sends the browser back saying it is failing or busy for now (RFC 6749 §4.1.2.1) is
        // unavailable, as when its token endpoint says so: the page says to try again in a few minutes.
        if (passing.has(error.error)) throw this.unavailable(`answered the authorization with ${error.error}`, error);
        throw new AuthorizationDenied(error.error, error.error_description);
      }
      throw new AuthorizationDenied("invalid_callback", (error as Error).message);
    }
    try {
      const response = await oauth.authorizationCodeGrantRequest(
        server,
        this.client,
        this.auth,
        params,
        this.config.redirectUri,
        codeVerifier,
        this.httpFor(requestId),
      );
      // Tokens the gateway will not keep (an answer it refuses: no Bearer type, a negative lifetime, a token too
      // long): the grant they stand for ends at the provider rather than stays live.
      const copy = response.clone();
      try {
        const answered = await oauth.processAuthorizationCodeResponse(server, this.client, response);
        return toTokenSet(answered, now(), this.config.scopes);
      } catch (error) {
        await this.revokeIssued(copy, requestId);
        throw error;
      }
    } catch (error) {
      // An OAuth error refuses the code for good (invalid_grant, invalid_client, …), unless it says the server is
      // busy or failing for now: that is the server unavailable, and the page says to try again in a few minutes.
      if (error instanceof oauth.ResponseBodyError && !passing.has(error.error) && error.status < 500) {
        throw new AuthorizationDenied(error.error, error.error_description);
      }
      throw this.unavailable("did not complete the code exchange", error);
    }
  }

  /**
   * Refreshes with `refreshToken`, waiting up to `timeoutMs` (the client's timeout unless given) for the answer. The
   * new token's lifetime counts from `now()` when the answer has come: the server issued it then, not when asked.
   * `requestId`: the gateway request the refresh is made for.
   */
  async refresh(
    refreshToken: string,
    now: () => number,
    timeoutMs = this.config.timeoutMs,
    requestId?: string,
  ): Promise<TokenSet> {
    const server = await this.server();
    try {
      const http = this.httpFor(requestId, timeoutMs);
      const response = await oauth.refreshTokenGrantRequest(server, this.client, this.auth, refreshToken, http);
      const copy = response.clone();
      try {
        return toTokenSet(await oauth.processRefreshTokenResponse(server, this.client, response), now(), []);
      } catch (error) {
        // Tokens issued but not usable (another type, a negative lifetime, too long): a rotating server has used up
        // the refresh token the gateway sent, so the connection cannot refresh again. Their grant is revoked, and the
        // connection needs the end user, as when the refresh is refused. An answer without tokens (a maintenance
        // page, an error) used nothing up: that is the server unavailable for now.
        if (!(await this.revokeIssued(copy, requestId))) throw error;
        throw new RefreshUnusable(
          `The refresh was answered with tokens the gateway cannot use: ${(error as Error).message}`,
        );
      }
    } catch (error) {
      if (error instanceof RefreshRefused) throw error;
      if (error instanceof oauth.ResponseBodyError && error.error === "invalid_grant") {
        throw new RefreshRefused(error.error_description ?? "invalid_grant");
      }
      throw this.unavailable("did not refresh the access token", error);
    }
  }

  /**
   * Revokes the grant a token endpoint's answer stands for, when it is JSON that carries a token (the refresh token,
   * else the access token); answers whether it carried one.
   */
  private async revokeIssued(answer: Response, requestId: string | undefined): Promise<boolean> {
    const body = (await answer.json().catch(() => undefined)) as { refresh_token?: unknown; access_token?: unknown };
    const token = body?.refresh_token ?? body?.access_token;
    if (typeof token !== "string" || token === "") return false;
    await this.revoke(token, requestId);
    return true;
  }

  /** Revokes a token (the refresh token ends the whole grant). Failures are reported, never thrown. */
  async revoke(token: string, requestId?: string): Promise<boolean> {
    try {
      const server = await this.server();
      if (!server.revocation_endpoint) return false;
      const response = await oauth.revocationRequest(server, this.client, this.auth, token, this.httpFor(requestId));
      await oauth.processRevocationResponse(response);
      return true;
    } catch {
      return false;
    }
  }

  private unavailable(what: string, cause: unknown): GatewayError {
    const answer = answerOf(cause);
    // A server that asks to be left alone for a while (429, 503 with Retry-After): the caller hears when to retry.
    const seconds = answer ? retryAfterSeconds(answer.headers.get("retry-after") ?? undefined, Date.now()) : undefined;
    return new GatewayError(
      "provider_unavailable",
      `The ${this.config.providerId} provider's authorization server ${what}`,
      {
        provider: this.config.providerId,
        // The provider's API was not called (its authorization server failed first): an Idempotency-Key stays free.
        notExecuted: true,
        ...(seconds !== undefined && { retryAfterSeconds: seconds }),
        ...(cause !== undefined && { cause: withStatus(cause) }),
      },
    );
  }
}

/** The authorization server's answer behind one of oauth4webapi's errors, when it kept it. */
function answerOf(cause: unknown): Response | undefined {
  if (cause instanceof oauth.ResponseBodyError) return cause.response;
  if (cause instanceof oauth.OperationProcessingError && cause.cause instanceof Response) return cause.cause;
  return undefined;
}

/**
 * oauth4webapi's error for an answer of the wrong status keeps the Response as its cause, which a log line does not
 * show: the status goes into the message of the cause the gateway logs.
 */
function withStatus(cause: unknown): unknown {
  if (!(cause instanceof oauth.OperationProcessingError) || !(cause.cause instanceof Response)) return cause;
  return Object.assign(new Error(`${cause.message}: the server answered HTTP ${cause.cause.status}`), {
    code: cause.code,
  });
}

/** An `error` in the callback or a refused code exchange: the flow ends without a connection. */
export class AuthorizationDenied extends Error {
  constructor(
    readonly error: string,
    readonly description: string | undefined,
  ) {
    super(description ?? error);
  }
}

/** The longest token the gateway keeps: far past any real provider's, short of a store row's worth of garbage. */
export const maxTokenLength = 16 * 1024;
/** The longest lifetime taken from `expires_in`: a year (a larger one is read as a year, refreshed before then). */
const maxLifetimeMs = 365 * 86_400_000;

/**
 * The tokens of a token endpoint's answer, as the gateway keeps them: a lifetime in whole milliseconds from `now`,
 * at most a year (`expires_in` may be fractional, or absurdly large, and the store keeps whole numbers); the scopes
 * requested when a code exchange's answer names none (RFC 6749 §5.1: an omitted scope is the one requested; a refresh
 * passes none, and the connection keeps the scopes it has). A token longer than
 * maxTokenLength, or of another type than Bearer, is refused.
 */
function toTokenSet(response: oauth.TokenEndpointResponse, now: number, requested: readonly string[]): TokenSet {
  if (response.token_type !== "bearer") throw new Error(`Unsupported token type ${response.token_type}`);
  for (const [name, token] of [
    ["access", response.access_token],
    ["refresh", response.refresh_token],
  ] as const) {
    if (token !== undefined && token.length > maxTokenLength) {
      throw new Error(`The ${name} token is ${token.length} characters long, more than ${maxTokenLength}`);
    }
  }
  const lifetimeMs =
    typeof response.expires_in === "number" && Number.isFinite(response.expires_in)
      ? Math.min(maxLifetimeMs, Math.max(0, Math.floor(response.expires_in * 1000)))
      : undefined;
  return {
    accessToken: response.access_token,
    refreshToken: response.refresh_token,
    expiresAt: lifetimeMs === undefined ? null : now + lifetimeMs,
    scopes: response.scope ? response.scope.split(" ").filter(Boolean) : [...requested],
  };
}
