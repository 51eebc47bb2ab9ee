// The gateways bench/idempotency-and-limits measures, shared by its two instruments (index.ts: throughput and CPU
// time; instructions.ts: instructions counted by callgrind): the two requests, and a gateway on a store of its own.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { loadConfig } from "../../packages/gateway/src/config.ts";
import { randomBase62 } from "../../packages/gateway/src/core/ids.ts";
import { createGateway } from "../../packages/gateway/src/gateway.ts";
import { platformProvider } from "../../packages/gateway/src/providers/platform/manifest.ts";
import type { BenchStore } from "../shared/stores.ts";
import { benchProvider } from "./provider.ts";

const postgresUrl = process.env.GATEWAY_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const redisUrl = process.env.GATEWAY_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

// platform:list_api_keys (one read of the store, no upstream: the cheapest request there is, so the added cost is the
// largest share it can be) and benchkit:fetch_item (one upstream call, like a provider operation).
export const requests = [
  { name: "platform:list_api_keys", path: "/v1/platform/list_api_keys", body: "{}" },
  { name: "benchkit:fetch_item", path: "/v1/benchkit/fetch_item", body: '{"item_id":"42"}' },
];

// No key; a fresh key on every request (claim + stored answer); the same key every time (replays); and the same
// request on a second gateway with rate limits off.
export const variants = ["no key", "fresh key", "replayed key", "no limiter"] as const;
export type Variant = (typeof variants)[number];

/** The headers of a variant's requests; "[<id>]" is replaced by autocannon with an id unique to each request. */
export function variantHeaders(variant: Variant, key: string, requestName: string): Record<string, string> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  if (variant === "fresh key") headers["idempotency-key"] = "bench-[<id>]";
  if (variant === "replayed key") headers["idempotency-key"] = `bench-same-${requestName}`;
  return headers;
}

export const storeLabel = (store: BenchStore) =>
  store === "sqlite" ? "SQLite, in-process limiter" : "PostgreSQL + Redis";

export interface BenchGateway {
  /** On PostgreSQL: the server's CPU per request is measured too (the server runs on this machine). */
  postgres: boolean;
  url: string;
  key: string;
  cleanup(): Promise<void>;
}

/** The pair a run compares: rate limits on (every variant but one) and off ("no limiter"), on one kind of store. */
export async function startGatewayPair(store: BenchStore, upstreamUrl: string) {
  const limited = await startGateway(store, upstreamUrl, true);
  const unlimited = await startGateway(store, upstreamUrl, false);
  return {
    of: (variant: Variant) => (variant === "no limiter" ? unlimited : limited),
    async cleanup() {
      await limited.cleanup();
      await unlimited.cleanup();
    },
  };
}

/**
 * A gateway on a store of its own (a data directory or a PostgreSQL schema), with a key the load never limits, and
 * with or without rate limits (GATEWAY_NO_RATE_LIMITS).
 */
export async function startGateway(store: BenchStore, upstreamUrl: string, rateLimits: boolean): Promise<BenchGateway> {
  const env = {
    GATEWAY_UPSTREAM_BENCHKIT_URL: upstreamUrl,
    GATEWAY_NO_WEBHOOK_WORKER: "1",
    ...(!rateLimits && { GATEWAY_NO_RATE_LIMITS: "1" }),
  };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-idempotency-"));
  const schema = store === "postgres" ? `bench_${randomBase62(10).toLowerCase()}` : undefined;
  if (schema) await sql(`CREATE SCHEMA ${schema}`);
  const config = loadConfig({
    PORT: "0",
    GATEWAY_ENV: "test",
    GATEWAY_DATA_DIR: dataDir,
    ...(schema && {
      GATEWAY_DATABASE_URL: postgresUrl,
      GATEWAY_REDIS_URL: redisUrl,
      GATEWAY_REDIS_KEY_PREFIX: `bench-${randomBase62(8)}:`,
      // GATEWAY_NO_PREPARED_STATEMENTS=1 in the benchmark's environment measures without prepared statements.
      GATEWAY_NO_PREPARED_STATEMENTS: process.env.GATEWAY_NO_PREPARED_STATEMENTS ?? "",
    }),
    ...env,
  });
  const gateway = await createGateway({
    config,
    providers: [platformProvider, benchProvider],
    ...(schema && { storeSchema: schema }),
  });
  const url = await gateway.listen();
  await gateway.core.accounts.ensure("default");
  // The limiter runs on every request, but this limit is never reached.
  const { key } = await gateway.core.apiKeys.create({
    accountId: "default",
    scopes: ["*"],
    rateLimit: { perMinute: 1_000_000_000, burst: 1_000_000_000 },
  });
  return {
    postgres: store === "postgres",
    url,
    key,
    async cleanup() {
      await gateway.close();
      if (schema) await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function sql(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  await client.query(text);
  await client.end();
}
