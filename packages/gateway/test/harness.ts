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

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
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
  const config = loadConfig({
    GATEWAY_DATA_DIR: dataDir,
    PORT: String(port),
    GATEWAY_ENV: "test",
    GATEWAY_KEY_CACHE_TTL_MS: "0",
    ...(usePostgres && { GATEWAY_DATABASE_URL: postgresUrl }),
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
