// bench/idempotency-and-limits: what an Idempotency-Key and the rate limiter cost, each as a ratio to the same
// request without it, measured in one run, on SQLite (in-process limiter) and on PostgreSQL + Redis.
// Two requests: platform:list_api_keys (one read of the store, no upstream: the cheapest request there is, so the
// added cost is the largest share it can be) and benchkit:fetch_item (one upstream call, like a provider operation).
// Variants: no key; a fresh key on every request (claim + stored answer); the same key every time (replays); and the
// same request on a second gateway with rate limits off. Both gateways run in this process, each on its own store;
// autocannon runs in a child process, so this process's CPU time is the gateways' alone (reported per request).
// Variants are interleaved over rounds and medians kept, so that noise on a shared machine hits them alike.
// Run alone: node --import tsx bench/idempotency-and-limits/index.ts [seconds per measurement]
import "../../packages/gateway/src/cli/tick-shapes.ts";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { applyServingV8Settings } from "../../packages/gateway/src/cli/v8-settings.ts";
import { loadConfig } from "../../packages/gateway/src/config.ts";
import { randomBase62 } from "../../packages/gateway/src/core/ids.ts";
import { createGateway, type Gateway } from "../../packages/gateway/src/gateway.ts";
import { platformProvider } from "../../packages/gateway/src/providers/platform/manifest.ts";
import { median, printTable, round } from "../shared/load.ts";
import { firstLine, startNode } from "../shared/processes.ts";
import { type BenchStore, benchStores } from "../shared/stores.ts";
import { benchProvider } from "./provider.ts";
import { type Sample, sample } from "./sample.ts";

const postgresUrl = process.env.GATEWAY_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const redisUrl = process.env.GATEWAY_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const rounds = 4;
const connections = 32;
const variants = ["no key", "fresh key", "replayed key", "no limiter"] as const;
type Variant = (typeof variants)[number];
const requests = [
  { name: "platform:list_api_keys", path: "/v1/platform/list_api_keys", body: "{}" },
  { name: "benchkit:fetch_item", path: "/v1/benchkit/fetch_item", body: '{"item_id":"42"}' },
];

interface Node {
  gateway: Gateway;
  /** On PostgreSQL: the server's CPU per request is measured too (the server runs on this machine). */
  postgres: boolean;
  url: string;
  key: string;
  cleanup(): Promise<void>;
}

export async function run(seconds = Number(process.env.BENCH_SECONDS ?? 5)): Promise<void> {
  // The gateways run in this process: with the V8 settings of `gateway serve`.
  applyServingV8Settings();
  const upstream = startNode([path.join(import.meta.dirname, "upstream.ts")], {}, "pipe");
  const summary: Record<string, string | number>[] = [];
  try {
    const upstreamUrl = (JSON.parse(await firstLine(upstream)) as { url: string }).url;
    for (const store of benchStores()) {
      const label = store === "sqlite" ? "SQLite, in-process limiter" : "PostgreSQL + Redis";
      const env = { GATEWAY_UPSTREAM_BENCHKIT_URL: upstreamUrl, GATEWAY_NO_WEBHOOK_WORKER: "1" };
      const limited = await startGateway(store, env);
      const unlimited = await startGateway(store, { ...env, GATEWAY_NO_RATE_LIMITS: "1" });
      try {
        for (const request of requests) summary.push(await measure(label, request, limited, unlimited, seconds));
      } finally {
        await limited.cleanup();
        await unlimited.cleanup();
      }
    }
  } finally {
    await upstream.stop();
  }
  printTable("Cost of each, as the share of throughput lost (target < 15 %)", summary);
}

async function measure(
  label: string,
  request: (typeof requests)[number],
  limited: Node,
  unlimited: Node,
  seconds: number,
): Promise<Record<string, string | number>> {
  const run = (variant: Variant, duration: number) => {
    const node = variant === "no limiter" ? unlimited : limited;
    const headers: Record<string, string> = { authorization: `Bearer ${node.key}`, "content-type": "application/json" };
    if (variant === "fresh key") headers["idempotency-key"] = "bench-[<id>]";
    if (variant === "replayed key") headers["idempotency-key"] = `bench-same-${request.name}`;
    return sample(`${node.url}${request.path}`, headers, request.body, duration, connections, node.postgres);
  };
  for (const variant of variants) await run(variant, 1); // warm-up
  const samples = Object.fromEntries(variants.map((v) => [v, [] as Sample[]])) as Record<Variant, Sample[]>;
  // Each round starts with the next variant (4 rounds, 4 variants): what one variant leaves behind (a WAL to checkpoint, old-generation
  // garbage from the stored answers) then falls on every other variant in turn, not always on the same one.
  for (let i = 0; i < rounds; i++) {
    for (let j = 0; j < variants.length; j++) {
      const variant = variants[(i + j) % variants.length] as Variant;
      samples[variant].push(await run(variant, seconds));
    }
  }

  const rps = (v: Variant) => median(samples[v].map((s) => s.requestsPerSecond));
  const cpu = (v: Variant) => median(samples[v].map((s) => s.cpuMicrosPerRequest));
  const databaseCpu = (v: Variant) => median(samples[v].map((s) => s.databaseCpuMicrosPerRequest ?? 0));
  printTable(
    `${label}: ${request.name}, ${rounds} rounds × ${seconds} s, ${connections} connections (medians)`,
    variants.map((v) => ({
      variant: v,
      "req/s": round(rps(v), 0),
      "CPU µs/req": round(cpu(v), 0),
      ...(limited.postgres && { "PostgreSQL CPU µs/req": round(databaseCpu(v), 0) }),
      "p50 ms": median(samples[v].map((s) => s.p50Ms)),
      "p99 ms": median(samples[v].map((s) => s.p99Ms)),
      "non-2xx or errors": samples[v].reduce((sum, s) => sum + s.failures, 0),
    })),
  );
  const percent = (value: number) => `${round(value * 100, 1)} %`;
  return {
    store: label,
    request: request.name,
    "Idempotency-Key (fresh)": percent(1 - rps("fresh key") / rps("no key")),
    "replay vs no key": percent(1 - rps("replayed key") / rps("no key")),
    "rate limiter": percent(1 - rps("no key") / rps("no limiter")),
    "CPU/req +key": percent(cpu("fresh key") / cpu("no key") - 1),
    "CPU/req +limiter": percent(cpu("no key") / cpu("no limiter") - 1),
  };
}

/** A gateway on a store of its own (a data directory or a PostgreSQL schema), with a key the load never limits. */
async function startGateway(store: BenchStore, env: Record<string, string>): Promise<Node> {
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
    gateway,
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

if (import.meta.url === `file://${process.argv[1]}`)
  await run(Number(process.argv[2] ?? process.env.BENCH_SECONDS ?? 5));
