// Row types of every table, for Kysely. Times are integer milliseconds since the epoch; JSON is stored as text.
import type { Generated } from "kysely";

export interface AccountsTable {
  id: string;
  name: string;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  key_hash: string;
  /** The first characters of the key, safe to show ("gwk_AbCd"). */
  key_prefix: string;
  /** JSON array of scope strings. */
  scopes: string;
  rate_limit_per_minute: number | null;
  rate_limit_burst: number | null;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  last_used_at: number | null;
}

export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  url: string;
  /** JSON array of event types, or ["*"]. */
  event_types: string;
  created_at: number;
  updated_at: number;
}

export interface WebhookSecretsTable {
  id: string;
  endpoint_id: string;
  /** The `whsec_…` secret sealed by the secret box (core/crypto/secret-box.ts). */
  secret_sealed: string;
  created_at: number;
  /** Null while current; set by a rotation to the end of its grace. */
  expires_at: number | null;
}

export interface EventsTable {
  id: string;
  account_id: string;
  type: string;
  /** The event envelope as JSON text, exactly the bytes every delivery attempt sends. */
  body: string;
  created_at: number;
}

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  account_id: string;
  endpoint_id: string;
  status: "pending" | "succeeded" | "failed";
  attempt_count: number;
  next_attempt_at: number;
  lease_until: number | null;
  created_at: number;
  deadline_at: number;
  completed_at: number | null;
  last_status_code: number | null;
  last_error: string | null;
}

export interface WebhookAttemptsTable {
  delivery_id: string;
  event_id: string;
  attempt: number;
  url: string;
  attempted_at: number;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  /** The first 1 KiB of the response body. */
  response_body: string | null;
}

export interface InboundHooksTable {
  provider_id: string;
  provider_event_id: string;
  type: string;
  received_at: number;
}

export interface IdempotencyKeysTable {
  account_id: string;
  /** SHA-256 (hex) of the Idempotency-Key; the key itself is never stored. */
  key_hash: string;
  /** SHA-256 (hex) of method, path, connection id and the body's SHA-256. */
  fingerprint: string;
  state: "running" | "completed";
  /** Random per claim: only the node holding it may complete, renew or release the record. */
  claim_token: string;
  /** A running claim not renewed by then belongs to a node that stopped; another may take it over. */
  lease_until: number;
  status: number | null;
  content_type: string | null;
  /** The first response's bytes, sealed under a key derived from the Idempotency-Key (core/idempotency/seal.ts). */
  body: string | null;
  created_at: number;
  expires_at: number;
}

export interface ConnectionsTable {
  id: string;
  account_id: string;
  provider_id: string;
  external_ref: string;
  status: "active" | "needs_reauth" | "deleted";
  /** JSON array of the scopes the provider granted. */
  scopes: string;
  /** Sealed by the secret box; null once the connection is deleted or needs re-authorisation. */
  access_token: string | null;
  refresh_token: string | null;
  access_expires_at: number | null;
  token_version: number;
  refresh_lock_owner: string | null;
  refresh_lock_until: number | null;
  replaces: string | null;
  replaced_by: string | null;
  created_at: number;
  updated_at: number;
  last_refreshed_at: number | null;
  deleted_at: number | null;
}

export interface ConnectSessionsTable {
  id: string;
  /** SHA-256 (hex) of the token in connect_url; the token itself is never stored. */
  token_hash: string;
  account_id: string;
  provider_id: string;
  external_ref: string;
  status: "pending" | "started" | "completing" | "completed" | "failed";
  /** SHA-256 (hex) of the OAuth `state` sent to the provider. */
  state_hash: string | null;
  /** The PKCE code verifier, sealed by the secret box. */
  code_verifier: string | null;
  /** SHA-256 (hex) of the cookie that binds the flow to the browser that started it. */
  browser_hash: string | null;
  failure: string | null;
  connection_id: string | null;
  created_at: number;
  expires_at: number;
  finished_at: number | null;
}

export interface ConnectionSnapshotsTable {
  connection_id: string;
  /** What the provider keeps, e.g. "price". */
  kind: string;
  key: string;
  /** JSON text. */
  value: string;
  updated_at: number;
}

export interface ConsoleUsersTable {
  id: string;
  account_id: string;
  /** Lowercased; unique across accounts (the sign-in form asks for the email only). */
  email: string;
  /** `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>` (core/users/passwords.ts). */
  password_hash: string;
  created_at: number;
  last_sign_in_at: number | null;
}

export interface ConsoleSessionsTable {
  id: string;
  /** SHA-256 (hex) of the cookie's value; the value itself is never stored. */
  token_hash: string;
  user_id: string;
  account_id: string;
  /** Synchronizer token: state-changing console requests must echo it in X-CSRF-Token. */
  csrf_token: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
}

export interface ConsoleLoginFailuresTable {
  /** `email:<sha256>` or `ip:<address>`. */
  key: string;
  window_start: number;
  failures: number;
}

export interface DelegationTokensTable {
  id: string;
  /** SHA-256 (hex) of the `gwd_…` token. */
  token_hash: string;
  account_id: string;
  user_id: string;
  /** JSON array of scope strings, a subset of what the user may do. */
  scopes: string;
  /** The connection credentials-mode calls run against; never sent to the browser. */
  connection_id: string | null;
  /** The console session that minted it: the token works while that session lives (null: minted before 0008). */
  session_id: string | null;
  created_at: number;
  expires_at: number;
}

export interface UsageMinutesTable {
  account_id: string;
  provider_id: string;
  operation_id: string;
  status: number;
  /** Start of the minute, ms since the epoch. */
  minute: number;
  count: number;
  /** JSON object: latency bucket index → count (core/usage/histogram.ts). */
  latency_buckets: string;
}

export interface ProviderResourcesTable {
  /** The gateway's id of the resource (`rsv_…`), the one callers use. */
  id: string;
  provider_id: string;
  /** What the provider calls it: "reservation", "waitlist_entry", "order". */
  kind: string;
  /** The upstream's own id, which its hooks name. */
  upstream_id: string;
  /** Null while the upstream's hook came before the creating call recorded the resource. */
  account_id: string | null;
  connection_id: string | null;
  status: string;
  /** JSON text: the resource exactly as its get_… operation answers it. */
  object: string;
  /** The upstream's revision of the state copied; older states never overwrite newer ones. */
  upstream_revision: number;
  /**
   * JSON text, while the copy has no owner: every state it was given, `[{revision, object}]` in the order applied, so
   * that the adopting call records each change's events. Null once owned.
   */
  unowned_history: string | null;
  created_at: number;
  updated_at: number;
}

export interface StoreSettingsTable {
  name: string;
  value: string;
  created_at: number;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_secrets: WebhookSecretsTable;
  events: EventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  inbound_hooks: InboundHooksTable;
  idempotency_keys: IdempotencyKeysTable;
  connections: ConnectionsTable;
  connect_sessions: ConnectSessionsTable;
  connection_snapshots: ConnectionSnapshotsTable;
  console_users: ConsoleUsersTable;
  console_sessions: ConsoleSessionsTable;
  console_login_failures: ConsoleLoginFailuresTable;
  delegation_tokens: DelegationTokensTable;
  usage_minutes: UsageMinutesTable;
  provider_resources: ProviderResourcesTable;
  store_settings: StoreSettingsTable;
}

export type { Generated };
