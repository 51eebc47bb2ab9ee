// The resolved configuration of one sandbox authorization server, shared by its route files.
import type { FastifyRequest } from "fastify";
import { OAuthState } from "./state.ts";
import type { OAuthClientRegistration, OAuthServerOptions, SandboxUser } from "./types.ts";

/** The client the gateway uses against every sandbox (override the secret with SANDBOX_OAUTH_CLIENT_SECRET). */
export const DEFAULT_CLIENT_ID = "provider-gateway";
export const DEFAULT_CLIENT_SECRET = "sandbox-client-secret";

/** Documented sandbox fixtures: `demo` / `demo` is the end user of every example; `demo2` is a second shopper. */
export const DEFAULT_USERS: SandboxUser[] = [
  { id: "usr_demo", username: "demo", password: "demo", displayName: "デモ 太郎" },
  { id: "usr_demo2", username: "demo2", password: "demo2", displayName: "デモ 花子" },
];

export interface OAuthContext {
  siteName: string;
  /**
   * The sign-in cookie's name, one per sandbox: browsers keep cookies per host whatever the port, and the sandboxes
   * share a host (127.0.0.1), so a sign-in at one must not replace the sign-in at another.
   */
  sessionCookie: string;
  scopes: Record<string, string>;
  now: () => number;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  rotateRefreshTokens: boolean;
  clients: Map<string, OAuthClientRegistration>;
  users: SandboxUser[];
  state: OAuthState;
  issuerOf(request: FastifyRequest): string;
}

function envSeconds(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

function defaultClients(): OAuthClientRegistration[] {
  const redirectUris = process.env.SANDBOX_OAUTH_REDIRECT_URIS?.split(",").filter(Boolean);
  return [
    {
      clientId: DEFAULT_CLIENT_ID,
      clientSecret: process.env.SANDBOX_OAUTH_CLIENT_SECRET || DEFAULT_CLIENT_SECRET,
      name: "Provider Gateway",
      ...(redirectUris && redirectUris.length > 0 && { redirectUris }),
    },
  ];
}

export function createOAuthContext(options: OAuthServerOptions): OAuthContext {
  const now = options.now ?? Date.now;
  return {
    siteName: options.siteName,
    sessionCookie: `sandbox_session_${options.tokenPrefix}`,
    scopes: options.scopes,
    now,
    accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? envSeconds("SANDBOX_ACCESS_TOKEN_TTL_S", 900),
    refreshTokenTtlSeconds: options.refreshTokenTtlSeconds ?? 30 * 24 * 3600,
    rotateRefreshTokens: options.rotateRefreshTokens ?? true,
    clients: new Map((options.clients ?? defaultClients()).map((c) => [c.clientId, c])),
    users: options.users ?? DEFAULT_USERS,
    state: new OAuthState(now, options.tokenPrefix),
    issuerOf: (request) => options.issuer ?? `${request.protocol}://${request.headers.host ?? request.hostname}`,
  };
}

/** Whether the client may use this redirect URI: exact match, or any http(s) URI when none are registered. */
export function redirectUriAllowed(client: OAuthClientRegistration, uri: string): boolean {
  if (client.redirectUris) return client.redirectUris.includes(uri);
  try {
    const url = new URL(uri);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hash === "" && !uri.includes("#");
  } catch {
    return false;
  }
}
