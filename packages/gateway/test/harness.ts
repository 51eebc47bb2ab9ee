// Starts a real gateway for a test: on SQLite in a temporary directory, or on PostgreSQL in a schema of its own
// (GATEWAY_TEST_STORE=postgres), listening on a free loopback port, with in-process sandboxes.
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { type GatewayConfig, loadConfig } from "../src/config.ts";
import type { Clock } from "../src/core/clock.ts";
import { randomBase62 } from "../src/core/ids.ts";
import type { HostResolver } from "../src/core/webhooks/resolver.ts";
import { createGateway, type Gateway, type GatewayOptions } from "../src/gateway.ts";
import type { ProviderDefinition } from "../src/providers/types.ts";

export interface TestGateway {
  url: string;
  gateway: Gateway;
  /** A key of the account "default" with scope "*". */
  key: string;
  config: GatewayConfig;
  /** POST /v1/{provider}/{operation} with the default key, JSON body. */
  call(provider: string, operation: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

export interface TestGatewayOptions {
  env?: Record<string, string>;
  clock?: Clock;
  /** Reuse another gateway's store (a second node): pass its dataDir / schema. */
  shareStoreWith?: TestGateway;
  /** Replaces the registry's providers (a test-only provider, for instance). */
  providers?: readonly ProviderDefinition[];
  /** Replaces DNS for webhook delivery (simulated DNS rebinding). */
  webhookResolver?: HostResolver;
  /** The gateway's logger (tests that inspect log lines pass a stream). */
  logger?: GatewayOptions["logger"];
}

export const testStore = (): "sqlite" | "postgres" =>
  process.env.GATEWAY_TEST_STORE === "postgres" ? "postgres" : "sqlite";

// Ports for a listener that starts later (a child `gateway serve`) or for one that must stay closed. listen(0) would hand
// out a port of the kernel's ephemeral range, which any outgoing connection made meanwhile (to PostgreSQL, to a
// sandbox) may take as its local port; ports below that range are never handed out by the kernel, and each vitest
// worker draws from its own block of them, so a port returned here stays free until its user binds it. Each process
// starts at a random place in its block: two test runs at once (whose workers share pool ids) would otherwise hand out
// the same ports in the same order.
const PORTS_PER_WORKER = 500;
let nextPortOffset = Math.floor(Math.random() * PORTS_PER_WORKER);

const ephemeralRangeStart = ((): number => {
  try {
    return Number(fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768; // not Linux: IANA's dynamic range starts at 49152, Linux's default at 32768
  }
})();

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  const workers = Math.max(1, Math.floor((ephemeralRangeStart - 10_000) / PORTS_PER_WORKER));
  const worker = Number(process.env.VITEST_POOL_ID ?? 1) % workers;
  const base = 10_000 + worker * PORTS_PER_WORKER;
  for (let tries = 0; tries < PORTS_PER_WORKER; tries++) {
    const port = base + (nextPortOffset++ % PORTS_PER_WORKER);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${base}–${base + PORTS_PER_WORKER - 1}`);
}

async function createPostgresSchema(url: string): Promise<string> {
  const schema = `t_${randomBase62(12).toLowerCase()}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.end();
  return schema;
}

async function dropPostgresSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
}

export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const port = await freePort();
  const shared = options.shareStoreWith;
  const dataDir = shared?.config.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "gateway-test-"));
  const postgresUrl = process.env.GATEWAY_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  const usePostgres = testStore() === "postgres";
  const schema = usePostgres
    ? ((shared?.gateway as Gateway & { storeSchema?: string })?.storeSchema ??
      (await createPostgresSchema(postgresUrl)))
    : undefined;
  // One webhook worker per SQLite store (store/serving-lock.ts): a second node there runs none, unless the first
  // runs none either.
  const secondOnSqlite = shared !== undefined && !shared.config.databaseUrl && shared.config.webhookWorker;
  const config = loadConfig({
    GATEWAY_DATA_DIR: dataDir,
    PORT: String(port),
    GATEWAY_ENV: "test",
    GATEWAY_KEY_CACHE_TTL_MS: "0",
    ...(usePostgres && { GATEWAY_DATABASE_URL: postgresUrl }),
    ...(secondOnSqlite && { GATEWAY_NO_WEBHOOK_WORKER: "1" }),
    ...options.env,
  });
  const gateway = await createGateway({
    config,
    ...(options.clock && { clock: options.clock }),
    ...(options.providers && { providers: options.providers }),
    ...(options.webhookResolver && { webhookResolver: options.webhookResolver }),
    ...(options.logger && { logger: options.logger }),
    ...(schema && { storeSchema: schema }),
  });
  Object.assign(gateway, { storeSchema: schema });
  const url = await gateway.listen();
  await gateway.core.accounts.ensure("default");
  const { key } = await gateway.core.apiKeys.create({ accountId: "default", name: "test", scopes: ["*"] });
  return {
    url,
    gateway,
    key,
    config,
    call(provider, operation, body = {}, headers = {}) {
      return fetch(`${url}/v1/${provider}/${operation}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
    },
    async close() {
      await gateway.close();
      if (shared) return;
      if (schema) await dropPostgresSchema(postgresUrl, schema);
      else fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The error envelope's exact shape, for assertions. */
export function expectedError(
  code: string,
  extra: { provider?: string; retryable?: boolean } = {},
): { code: string; retryable: boolean; provider?: string } {
  const retryable = extra.retryable ?? ["rate_limited", "provider_unavailable"].includes(code);
  return { code, retryable, ...(extra.provider !== undefined && { provider: extra.provider }) };
}
