// Configuration from environment variables: the one place that reads process.env (docs/configuration.md lists them).
import path from "node:path";
import {
  type Env,
  environment,
  flag,
  httpUrl,
  integer,
  logLevel,
  milliseconds,
  parseHost,
  parsePort,
  redisUrl,
  trustProxy,
} from "./config-values.ts";
import { apiKeyBounds } from "./core/api-keys.ts";

export interface GatewayConfig {
  env: "development" | "production" | "test";
  host: string;
  port: number;
  publicUrl: string;
  /**
   * Which proxies' X-Forwarded-For to believe for the client address (the demo limit, sign-in throttling):
   * false (none, the default), a number of hops, or addresses and CIDR ranges (GATEWAY_TRUST_PROXY).
   */
  trustProxy: boolean | number | string[];
  dataDir: string;
  /** postgres://… or undefined for the embedded SQLite store in dataDir. */
  databaseUrl: string | undefined;
  /** PostgreSQL: statements run more than once are prepared on each connection (off behind a pooler without them). */
  preparedStatements: boolean;
  /** PostgreSQL: how long a connection may take to open, and a statement to be answered. */
  databaseTimeoutMs: number;
  /** `serve`: how long SIGTERM waits for the drain before the process exits anyway (status 1). */
  shutdownTimeoutMs: number;
  /** How long a stopping node keeps serving, not ready, before it stops accepting (load balancers see /readyz fail). */
  shutdownDelayMs: number;
  /** How long a request may take to arrive whole (headers and body); past it it is refused and its connection closed. */
  requestTimeoutMs: number;
  /**
   * How long an idle keep-alive connection stays open: longer than the load balancer's own idle timeout for its
   * connections to the gateway, so that it never sends a request on a connection the gateway is closing.
   */
  keepAliveTimeoutMs: number;
  /**
   * How long an answer being written may wait for its client to take any of it: past it, with none of the bytes not
   * yet sent accepted, the connection is destroyed (the client reads too slowly or not at all).
   */
  sendTimeoutMs: number;
  /**
   * Whether a client that half-closes its connection (a TCP FIN) after its requests is answered them: else the FIN
   * ends the connection, as from a client that left, and the requests not answered yet are logged 499.
   */
  answerHalfClosed: boolean;
  redisUrl: string | undefined;
  masterKey: string | undefined;
  /** GATEWAY_MASTER_KEY_PREVIOUS: during a rotation, the keys that still open (validated with the master key). */
  masterKeyPrevious: string | undefined;
  logLevel: string;
  /** `serve`: bytes of log lines held while standard output is not read; lines beyond are dropped and counted. */
  logBufferBytes: number;
  /** Per provider id: an upstream base URL; providers without one get an in-process sandbox. */
  upstreamUrls: Record<string, string>;
  upstreamTimeoutMs: number;
  keyCacheTtlMs: number;
  webhookAllowPrivate: boolean;
  /** Webhook delivery: attempt timeout, worker poll interval, claim lease, attempts in flight per node. */
  webhookTimeoutMs: number;
  webhookPollIntervalMs: number;
  webhookLeaseMs: number;
  webhookConcurrency: number;
  /** Attempts in flight per node to any one endpoint, at most `webhookConcurrency`. */
  webhookEndpointConcurrency: number;
  /** Whether this node runs the webhook delivery worker. */
  webhookWorker: boolean;
  /** Per provider id: the secret its inbound hooks are signed with (GATEWAY_HOOK_SECRET_<ID>). */
  hookSecrets: Record<string, string>;
  /** Whether `serve` starts the in-process sandboxes for providers with no configured upstream. */
  startSandboxes: boolean;
  /** Per provider id: OAuth client of connections (GATEWAY_OAUTH_<ID>_CLIENT_ID, _CLIENT_SECRET, _ISSUER). */
  oauthClients: Record<string, { clientId?: string; clientSecret?: string; issuer?: string }>;
  /** Prefix of every Redis key the gateway writes (deployments or test runs sharing one Redis stay apart). */
  redisKeyPrefix: string;
  /** A Redis command slower than this counts as Redis being unavailable (the request fails open). */
  redisCommandTimeoutMs: number;
  /** Whether per-key rate limits apply (off only when something in front of the gateway enforces them). */
  rateLimitsEnabled: boolean;
  /** Rate limit of keys without one of their own: requests a minute and burst. */
  rateLimitPerMinute: number;
  rateLimitBurst: number;
  /** How long a repeated Idempotency-Key waits for the first request to finish before 409. */
  idempotencyWaitMs: number;
}

/**
 * The per-provider settings, by prefix: a variable with the prefix that is not of the form (a provider id in lower
 * case, a misspelt suffix) is refused by name rather than ignored, since the gateway would otherwise quietly start
 * that provider's sandbox or default client instead.
 */
const upstreamSetting = /^GATEWAY_UPSTREAM_([A-Z0-9_]+)_URL$/;
const hookSecretSetting = /^GATEWAY_HOOK_SECRET_([A-Z0-9_]+)$/;
const oauthSetting = /^GATEWAY_OAUTH_([A-Z0-9_]+?)_(CLIENT_ID|CLIENT_SECRET|ISSUER)$/;
const providerSettingForms = [
  {
    prefix: "GATEWAY_UPSTREAM_",
    form: upstreamSetting,
    written: "GATEWAY_UPSTREAM_<PROVIDER>_URL",
    others: ["GATEWAY_UPSTREAM_TIMEOUT_MS"],
  },
  { prefix: "GATEWAY_HOOK_SECRET_", form: hookSecretSetting, written: "GATEWAY_HOOK_SECRET_<PROVIDER>" },
  {
    prefix: "GATEWAY_OAUTH_",
    form: oauthSetting,
    written: "GATEWAY_OAUTH_<PROVIDER>_CLIENT_ID, _CLIENT_SECRET or _ISSUER",
  },
];

function refuseMalformedProviderSettings(env: Env): void {
  for (const name of Object.keys(env)) {
    for (const { prefix, form, written, others = [] } of providerSettingForms) {
      if (!name.startsWith(prefix) || form.test(name) || others.includes(name)) continue;
      throw new Error(`${name} is not a setting the gateway takes: write ${written}, the provider id in capitals`);
    }
  }
}

/** A quarter of the node's webhook slots: one receiver that hangs leaves three quarters to the other endpoints. */
const defaultEndpointConcurrency = (concurrency: number) => Math.max(1, Math.floor(concurrency / 4));

export function loadConfig(env: Env = process.env, overrides: Partial<GatewayConfig> = {}): GatewayConfig {
  refuseMalformedProviderSettings(env);
  const port = env.PORT ? parsePort("PORT", env.PORT) : 8080;
  const upstreamUrls: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    const match = upstreamSetting.exec(name);
    if (match?.[1] && value) upstreamUrls[match[1].toLowerCase()] = httpUrl(name, value);
  }
  const hookSecrets: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    const match = hookSecretSetting.exec(name);
    if (match?.[1] && value) hookSecrets[match[1].toLowerCase()] = value;
  }
  const oauthClients: GatewayConfig["oauthClients"] = {};
  const oauthFields = { CLIENT_ID: "clientId", CLIENT_SECRET: "clientSecret", ISSUER: "issuer" } as const;
  for (const [name, value] of Object.entries(env)) {
    const match = oauthSetting.exec(name);
    if (!match?.[1] || !match[2] || !value) continue;
    const id = match[1].toLowerCase();
    const field = oauthFields[match[2] as keyof typeof oauthFields];
    // The issuer is where the gateway discovers the authorization server: an http(s) URL, as an upstream's is. It
    // is kept as written, trailing slash included: it must equal the issuer the server's metadata names (RFC 8414).
    if (field === "issuer") httpUrl(name, value);
    oauthClients[id] = { ...oauthClients[id], [field]: value };
  }
  const databaseUrl = env.GATEWAY_DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new Error("GATEWAY_DATABASE_URL must be a postgres:// URL (leave it unset for the embedded SQLite store)");
  }
  const webhookTimeoutMs = milliseconds(env, "GATEWAY_WEBHOOK_TIMEOUT_MS", 10_000);
  const webhookLeaseMs = milliseconds(env, "GATEWAY_WEBHOOK_LEASE_MS", 60_000);
  // A lease that ends while its attempt still waits for the receiver hands the delivery to a node (this one too)
  // that sends it again, and again at every lease, whatever the retry schedule says.
  if (webhookLeaseMs <= webhookTimeoutMs) {
    throw new Error(
      `GATEWAY_WEBHOOK_LEASE_MS (${webhookLeaseMs}) must be longer than GATEWAY_WEBHOOK_TIMEOUT_MS (${webhookTimeoutMs}): a delivery's lease must outlast its attempt`,
    );
  }
  const webhookConcurrency = integer(env, "GATEWAY_WEBHOOK_CONCURRENCY", 64, { min: 1 });
  const webhookEndpointConcurrency = integer(
    env,
    "GATEWAY_WEBHOOK_ENDPOINT_CONCURRENCY",
    defaultEndpointConcurrency(webhookConcurrency),
    { min: 1, max: webhookConcurrency },
  );
  return {
    env: environment(env),
    host: env.HOST ? parseHost("HOST", env.HOST) : "127.0.0.1",
    port,
    publicUrl: env.GATEWAY_PUBLIC_URL
      ? httpUrl("GATEWAY_PUBLIC_URL", env.GATEWAY_PUBLIC_URL)
      : `http://localhost:${port}`,
    trustProxy: trustProxy(env.GATEWAY_TRUST_PROXY),
    // Empty is unset, as for every other variable (path.resolve("") would be the working directory itself).
    dataDir: path.resolve(env.GATEWAY_DATA_DIR || "./data"),
    databaseUrl,
    preparedStatements: !flag(env, "GATEWAY_NO_PREPARED_STATEMENTS"),
    databaseTimeoutMs: milliseconds(env, "GATEWAY_DATABASE_TIMEOUT_MS", 30_000),
    shutdownTimeoutMs: milliseconds(env, "GATEWAY_SHUTDOWN_TIMEOUT_MS", 30_000),
    shutdownDelayMs: milliseconds(env, "GATEWAY_SHUTDOWN_DELAY_MS", 0, 0),
    requestTimeoutMs: milliseconds(env, "GATEWAY_REQUEST_TIMEOUT_MS", 60_000),
    // Fastify's default: above the 60 s idle timeout of most load balancers (AWS's, nginx's upstream keepalive).
    keepAliveTimeoutMs: milliseconds(env, "GATEWAY_KEEP_ALIVE_TIMEOUT_MS", 72_000),
    // nginx's send_timeout: 60 s between two writes the client takes.
    sendTimeoutMs: milliseconds(env, "GATEWAY_SEND_TIMEOUT_MS", 60_000),
    answerHalfClosed: flag(env, "GATEWAY_ANSWER_HALF_CLOSED"),
    redisUrl: redisUrl(env.GATEWAY_REDIS_URL),
    masterKey: env.GATEWAY_MASTER_KEY || undefined,
    masterKeyPrevious: env.GATEWAY_MASTER_KEY_PREVIOUS || undefined,
    logLevel: logLevel(env.GATEWAY_LOG_LEVEL),
    logBufferBytes: integer(env, "GATEWAY_LOG_BUFFER_BYTES", 16 * 1024 * 1024),
    upstreamUrls,
    upstreamTimeoutMs: milliseconds(env, "GATEWAY_UPSTREAM_TIMEOUT_MS", 10_000),
    keyCacheTtlMs: milliseconds(env, "GATEWAY_KEY_CACHE_TTL_MS", 2_000, 0),
    webhookAllowPrivate: flag(env, "GATEWAY_WEBHOOK_ALLOW_PRIVATE"),
    webhookTimeoutMs,
    webhookPollIntervalMs: milliseconds(env, "GATEWAY_WEBHOOK_POLL_INTERVAL_MS", 1_000),
    webhookLeaseMs,
    webhookConcurrency,
    webhookEndpointConcurrency,
    webhookWorker: !flag(env, "GATEWAY_NO_WEBHOOK_WORKER"),
    hookSecrets,
    startSandboxes: !flag(env, "GATEWAY_NO_SANDBOXES"),
    oauthClients,
    // Empty is unset, as for every variable: an empty prefix would share its keys with anything else in that Redis.
    redisKeyPrefix: env.GATEWAY_REDIS_KEY_PREFIX || "gateway:",
    redisCommandTimeoutMs: milliseconds(env, "GATEWAY_REDIS_COMMAND_TIMEOUT_MS", 200),
    rateLimitsEnabled: !flag(env, "GATEWAY_NO_RATE_LIMITS"),
    // The bounds of a key's own limit: the RateLimit headers carry these numbers.
    rateLimitPerMinute: integer(env, "GATEWAY_RATE_LIMIT_PER_MINUTE", 600, { min: 1, max: apiKeyBounds.rateLimitMax }),
    rateLimitBurst: integer(env, "GATEWAY_RATE_LIMIT_BURST", 60, { min: 1, max: apiKeyBounds.rateLimitMax }),
    idempotencyWaitMs: milliseconds(env, "GATEWAY_IDEMPOTENCY_WAIT_MS", 10_000, 0),
    ...overrides,
  };
}
