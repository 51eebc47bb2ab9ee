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
import path from "node:path";
import { applyServingV8Settings } from "../../packages/gateway/src/cli/v8-settings.ts";
import { median, printTable, round } from "../shared/load.ts";
import { firstLine, startNode } from "../shared/processes.ts";
import { benchStores } from "../shared/stores.ts";
import {
  type BenchGateway,
  requests,
  startGatewayPair,
  storeLabel,
  type Variant,
  variantHeaders,
  variants,
} from "./gateways.ts";
import { type Sample, sample } from "./sample.ts";

const rounds = 4;
const connections = 32;

export async function run(seconds = Number(process.env.BENCH_SECONDS ?? 5)): Promise<void> {
  // The gateways run in this process: with the V8 settings of `gateway serve`.
  applyServingV8Settings();
  const upstream = startNode([path.join(import.meta.dirname, "upstream.ts")], {}, "pipe");
  const summary: Record<string, string | number>[] = [];
  try {
    const upstreamUrl = (JSON.parse(await firstLine(upstream)) as { url: string }).url;
    for (const store of benchStores()) {
      const pair = await startGatewayPair(store, upstreamUrl);
      try {
        for (const request of requests) summary.push(await measure(storeLabel(store), request, pair.of, seconds));
      } finally {
        await pair.cleanup();
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
  gatewayOf: (variant: Variant) => BenchGateway,
  seconds: number,
): Promise<Record<string, string | number>> {
  const run = (variant: Variant, duration: number) => {
    const node = gatewayOf(variant);
    const headers = variantHeaders(variant, node.key, request.name);
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
      ...(gatewayOf("no key").postgres && { "PostgreSQL CPU µs/req": round(databaseCpu(v), 0) }),
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

if (import.meta.url === `file://${process.argv[1]}`)
  await run(Number(process.argv[2] ?? process.env.BENCH_SECONDS ?? 5));
