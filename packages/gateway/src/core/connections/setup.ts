// Builds the connection services of a gateway: one OAuth client per provider that declares `oauth`, pointed at the
// provider's authorization server (its configured issuer, else its upstream, whose sandbox runs one).
import { PeriodicPurge } from "../../store/batched-purge.ts";
import type { Store } from "../../store/database.ts";
import type { Clock } from "../clock.ts";
import type { MasterKeyWatch } from "../crypto/master-key-watch.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import type { Events } from "../events/events.ts";
import { ConnectSessions } from "./connect-sessions.ts";
import { Connections } from "./connections.ts";
import { ProviderOAuthClient } from "./oauth-client.ts";
import { type RefreshSettings, refreshSettings } from "./token-refresh.ts";

/** The client every sandbox authorization server registers (packages/sandbox/src/shared/oauth/context.ts). */
export const sandboxClient = { clientId: "provider-gateway", clientSecret: "sandbox-client-secret" };

/** What the connection services need to know of a provider (structurally, a ProviderDefinition). */
export interface ConnectableProvider {
  id: string;
  oauth?: { scopes: readonly string[] } | undefined;
}

/** Per provider: GATEWAY_OAUTH_<ID>_CLIENT_ID, _CLIENT_SECRET and _ISSUER. */
export interface OAuthClientSettings {
  clientId?: string;
  clientSecret?: string;
  issuer?: string;
}

export interface ConnectionServicesOptions {
  store: Store;
  clock: Clock;
  secretBox: SecretBox;
  /** Whether this node's master keys still open the store's secrets (a connect callback or a deletion is refused, not half done). */
  masterKeys?: MasterKeyWatch;
  events: Events;
  publicUrl: string;
  providers: readonly ConnectableProvider[];
  upstreamUrls: Record<string, string>;
  oauthClients: Record<string, OAuthClientSettings>;
  timeoutMs: number;
  refresh?: Partial<RefreshSettings>;
  log?: { warn(object: object, message: string): void };
}

export interface ConnectionServices {
  connections: Connections;
  connectSessions: ConnectSessions;
  /**
   * Stops the purge of sessions and deleted connections past their retention, after its current batch (the token
   * refreshes are the connections' to stop: `connections.stop()`).
   */
  stopPurge(): Promise<void>;
}

/** How often each node deletes the connect sessions and deleted connections past their retention (and once at start). */
const purgeIntervalMs = 60 * 60_000;

export function createConnectionServices(options: ConnectionServicesOptions): ConnectionServices {
  const clients = new Map<string, ProviderOAuthClient>();
  for (const provider of options.providers) {
    const settings = options.oauthClients[provider.id] ?? {};
    const issuer = settings.issuer ?? options.upstreamUrls[provider.id];
    if (!provider.oauth || !issuer) continue;
    clients.set(
      provider.id,
      new ProviderOAuthClient({
        providerId: provider.id,
        issuer,
        clientId: settings.clientId ?? sandboxClient.clientId,
        clientSecret: settings.clientSecret ?? sandboxClient.clientSecret,
        scopes: provider.oauth.scopes,
        redirectUri: `${options.publicUrl}/connect/callback`,
        timeoutMs: options.timeoutMs,
      }),
    );
  }
  const oauthClient = (providerId: string) => clients.get(providerId);
  const { store, clock, secretBox, events } = options;
  const connections = new Connections({
    db: store.db,
    clock,
    secretBox,
    masterKeys: options.masterKeys,
    events,
    oauthClient,
    refresh: { ...refreshSettings(options.timeoutMs), ...options.refresh },
    log: options.log,
  });
  const connectSessions = new ConnectSessions({
    db: store.db,
    clock,
    secretBox,
    masterKeys: options.masterKeys,
    publicUrl: options.publicUrl,
    connections,
    oauthClient,
  });
  const purge = new PeriodicPurge(
    {
      "connect session": (stopping) => connectSessions.purgeExpired(stopping),
      "deleted connection": (stopping) => connections.purgeDeleted(stopping),
    },
    purgeIntervalMs,
    (what, err) => options.log?.warn({ err }, `${what} purge failed`),
    { immediately: true },
  );
  return { connections, connectSessions, stopPurge: () => purge.stop() };
}
