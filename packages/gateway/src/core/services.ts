// The core services handed to operations (platform operations manage keys, connections, webhooks through these).
import type { Store } from "../store/database.ts";
import type { Accounts } from "./accounts.ts";
import type { ApiKeys } from "./api-keys.ts";
import type { Clock } from "./clock.ts";
import type { ConnectSessions } from "./connections/connect-sessions.ts";
import type { Connections } from "./connections/connections.ts";
import type { CursorSeal } from "./crypto/cursor-seal.ts";
import type { SecretBox } from "./crypto/secret-box.ts";
import type { Events } from "./events/events.ts";
import type { ResourceCopies } from "./resources/resource-copies.ts";
import type { Deliveries } from "./webhooks/deliveries.ts";
import type { WebhookEndpoints } from "./webhooks/endpoints.ts";

/** Resolves the connection of a credentials-mode call, refreshing its access token when due (core/connections). */
export interface ConnectionResolver {
  resolveForCall(input: { accountId: string; providerId: string; connectionId: string }): Promise<{
    id: string;
    externalRef: string;
    accessToken: string;
  }>;
  /** The provider refused `rejectedToken` (HTTP 401): answers a fresh one, refreshed at most once across nodes. */
  refreshRejected(input: {
    accountId: string;
    providerId: string;
    connectionId: string;
    rejectedToken: string;
  }): Promise<string>;
}

export interface CoreServices {
  store: Store;
  clock: Clock;
  accounts: Accounts;
  apiKeys: ApiKeys;
  publicUrl: string;
  /** Connections (core/connections): call resolution with token refresh, list, get, delete. */
  connections?: Connections;
  /** The hosted connect flow that creates connections. */
  connectSessions?: ConnectSessions;
  /** Encryption at rest (AES-256-GCM under the master key) for secrets the gateway reads back. */
  secretBox: SecretBox;
  /** Seals the pagination cursors handed out, so that only those come back (core/crypto/cursor-seal.ts). */
  cursors: CursorSeal;
  /** The event log; `events.record(trx, …)` inside the transaction of the state change that causes the event. */
  events: Events;
  webhooks: { endpoints: WebhookEndpoints; deliveries: Deliveries };
  /** The gateway's copies of stateful provider resources (providers/stateful uses them). */
  resources: ResourceCopies;
}
