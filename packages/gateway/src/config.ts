// Configuration from environment variables: the one place that reads process.env (docs/configuration.md lists them).
import path from "node:path";

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
  redisUrl: string | undefined;
  masterKey: string | undefined;
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

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

const flag = (env: Env, name: string) => ["1", "true", "yes"].includes((env[name] ?? "").toLowerCase());

/** "true" (every proxy), a hop count, or comma-separated addresses and CIDR ranges; unset or empty: none. */
function trustProxy(value: string | undefined): GatewayConfig["trustProxy"] {
  const text = value?.trim() ?? "";
  if (text === "" || text === "false" || text === "0") return false;
  if (text === "true") return true;
  if (/^\d+$/.test(text)) return Number(text);
  return text
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
}

export function loadConfig(env: Env = process.env, overrides: Partial<GatewayConfig> = {}): GatewayConfig {
  const port = integer(env, "PORT", 8080);
  if (port > 65_535) throw new Error(`PORT must be a port number (0 to 65535), got "${env.PORT}"`);
  const upstreamUrls: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    const match = /^GATEWAY_UPSTREAM_([A-Z0-9_]+)_URL$/.exec(name);
    if (match?.[1] && value) upstreamUrls[match[1].toLowerCase()] = value.replace(/\/$/, "");
  }
  const hookSecrets: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    const match = /^GATEWAY_HOOK_SECRET_([A-Z0-9_]+)$/.exec(name);
    if (match?.[1] && value) hookSecrets[match[1].toLowerCase()] = value;
  }
  const oauthClients: GatewayConfig["oauthClients"] = {};
  const oauthFields = { CLIENT_ID: "clientId", CLIENT_SECRET: "clientSecret", ISSUER: "issuer" } as const;
  for (const [name, value] of Object.entries(env)) {
    const match = /^GATEWAY_OAUTH_([A-Z0-9_]+?)_(CLIENT_ID|CLIENT_SECRET|ISSUER)$/.exec(name);
    if (!match?.[1] || !match[2] || !value) continue;
    const id = match[1].toLowerCase();
    oauthClients[id] = { ...oauthClients[id], [oauthFields[match[2] as keyof typeof oauthFields]]: value };
  }
  const nodeEnv = env.GATEWAY_ENV ?? env.NODE_ENV;
  const databaseUrl = env.GATEWAY_DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new Error("GATEWAY_DATABASE_URL must be a postgres:// URL (leave it unset for the embedded SQLite store)");
  }
  return {
    env: nodeEnv === "production" ? "production" : nodeEnv === "test" ? "test" : "development",
    host: env.HOST ?? "127.0.0.1",
    port,
    publicUrl: (env.GATEWAY_PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/$/, ""),
    trustProxy: trustProxy(env.GATEWAY_TRUST_PROXY),
    dataDir: path.resolve(env.GATEWAY_DATA_DIR ?? "./data"),
    databaseUrl,
    redisUrl: env.GATEWAY_REDIS_URL || undefined,
    masterKey: env.GATEWAY_MASTER_KEY || undefined,
    logLevel: env.GATEWAY_LOG_LEVEL ?? "info",
    logBufferBytes: integer(env, "GATEWAY_LOG_BUFFER_BYTES", 16 * 1024 * 1024),
    upstreamUrls,
    upstreamTimeoutMs: integer(env, "GATEWAY_UPSTREAM_TIMEOUT_MS", 10_000),
    keyCacheTtlMs: integer(env, "GATEWAY_KEY_CACHE_TTL_MS", 2_000),
    webhookAllowPrivate: flag(env, "GATEWAY_WEBHOOK_ALLOW_PRIVATE"),
    webhookTimeoutMs: integer(env, "GATEWAY_WEBHOOK_TIMEOUT_MS", 10_000),
    webhookPollIntervalMs: integer(env, "GATEWAY_WEBHOOK_POLL_INTERVAL_MS", 1_000),
    webhookLeaseMs: integer(env, "GATEWAY_WEBHOOK_LEASE_MS", 60_000),
    webhookConcurrency: Math.max(1, integer(env, "GATEWAY_WEBHOOK_CONCURRENCY", 64)),
    webhookWorker: !flag(env, "GATEWAY_NO_WEBHOOK_WORKER"),
    hookSecrets,
    startSandboxes: !flag(env, "GATEWAY_NO_SANDBOXES"),
    oauthClients,
    redisKeyPrefix: env.GATEWAY_REDIS_KEY_PREFIX ?? "gateway:",
    redisCommandTimeoutMs: Math.max(1, integer(env, "GATEWAY_REDIS_COMMAND_TIMEOUT_MS", 200)),
    rateLimitsEnabled: !flag(env, "GATEWAY_NO_RATE_LIMITS"),
    rateLimitPerMinute: Math.max(1, integer(env, "GATEWAY_RATE_LIMIT_PER_MINUTE", 600)),
    rateLimitBurst: Math.max(1, integer(env, "GATEWAY_RATE_LIMIT_BURST", 60)),
    idempotencyWaitMs: integer(env, "GATEWAY_IDEMPOTENCY_WAIT_MS", 10_000),
    ...overrides,
  };
}
