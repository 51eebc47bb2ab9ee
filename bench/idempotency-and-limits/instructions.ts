// bench/idempotency-and-limits/instructions: what an Idempotency-Key and the rate limiter cost, as instructions per
// request counted by valgrind's callgrind, against the same request without them. index.ts measures throughput with
// the gateways of a comparison measured one after the other; on a machine whose speed swings, its figures move by
// tens of percent between rounds (the limiter's sign flips). A count of instructions does not depend on the machine's
// speed, so it shows what a change to either path costs.
// The two gateways (host.ts), with rate limits and without, each run in a process of their own under callgrind with
// counting off. For each request, every variant is warmed up first (V8 compiles its path); then, for each variant in
// turn, counting is switched on for its measured requests, on 32 connections as in index.ts, and dumped. On
// PostgreSQL + Redis only the gateway's instructions are counted, not the servers'.
// Run alone: node --import tsx bench/idempotency-and-limits/instructions.ts [warm-up requests] [measured requests]
import path from "node:path";
import { callgrindOrSkip } from "../shared/callgrind.ts";
import { printTable, round, runLoad } from "../shared/load.ts";
import { type Child, firstLine, startNode } from "../shared/processes.ts";
import { benchStores } from "../shared/stores.ts";
import { requests, storeLabel, type Variant, variantHeaders, variants } from "./gateways.ts";

// As in index.ts: with the gateway saturated, a turn of its event loop serves many requests, and their statements are
// grouped (store/group-commit.ts) as they are under load.
const connections = 32;

/** A gateway's process and what host.ts printed of it. */
interface Host {
  child: Child;
  url: string;
  key: string;
  /** A POST here collects all garbage. */
  control: string;
}

export async function run(
  warmUp = Number(process.env.BENCH_WARM_UP ?? 2000),
  measured = Number(process.env.BENCH_REQUESTS ?? 2000),
): Promise<void> {
  const callgrind = callgrindOrSkip();
  if (!callgrind) return;
  const upstream = startNode([path.join(import.meta.dirname, "upstream.ts")], {}, "pipe");
  const summary: Record<string, string | number>[] = [];
  try {
    const upstreamUrl = (JSON.parse(await firstLine(upstream)) as { url: string }).url;
    for (const store of benchStores()) {
      // Each gateway in a process of its own: two gateways in one process share V8's compiled code and garbage
      // collector, and their counts then depend on each other's warm-up.
      const start = (rateLimits: boolean) => {
        const env = {
          BENCH_STORE: store,
          BENCH_UPSTREAM_URL: upstreamUrl,
          BENCH_RATE_LIMITS: rateLimits ? "on" : "off",
        };
        const args = ["--expose-gc", path.join(import.meta.dirname, "host.ts")];
        return startNode(args, env, "pipe", "tsx", callgrind.wrapper);
      };
      const children = [start(true), start(false)] as const;
      try {
        // Under valgrind a Node.js process starts about fifty times slower: this waits for as long as it takes.
        const [limited, unlimited] = (await Promise.all(
          children.map(async (child): Promise<Host> => ({ child, ...JSON.parse(await firstLine(child)) })),
        )) as [Host, Host];
        const hostOf = (variant: Variant) => (variant === "no limiter" ? unlimited : limited);
        for (const request of requests) {
          const load = (variant: Variant, amount: number) => {
            const gateway = hostOf(variant);
            return runLoad({
              url: `${gateway.url}${request.path}`,
              headers: variantHeaders(variant, gateway.key, request.name),
              body: request.body,
              connections,
              amount,
              idReplacement: true,
              // Under valgrind a collection of the old generation can stop the gateway for seconds.
              timeout: 120,
            });
          };
          // Every variant warmed up before any is counted, and each gateway as much as the other (the one without rate
          // limits serves one variant, the other three, at the same time), so that V8 is as far along in each count.
          const limitedVariants = variants.filter((variant) => variant !== "no limiter");
          await Promise.all([
            (async () => {
              for (const variant of limitedVariants) await load(variant, warmUp);
            })(),
            load("no limiter", warmUp * limitedVariants.length),
          ]);
          const perRequest = {} as Record<Variant, number>;
          for (const variant of variants) {
            // A count of a few thousand requests holds a collection of the old generation or not, by chance, and one
            // costs as much as many requests: each count starts after one (and its own requests, which let V8 compile
            // again what the collection threw away), so old-generation collections stay out of every count.
            await fetch(hostOf(variant).control, { method: "POST" });
            await load(variant, connections * 30);
            const { main, result } = await callgrind.count(hostOf(variant).child.process.pid, () =>
              load(variant, measured),
            );
            if (result.non2xx + result.errors > 0) {
              const what = `${result.non2xx} answers other than 2xx, ${result.errors} errors or timeouts`;
              throw new Error(`${request.name}, ${variant}: ${what} in ${measured} requests`);
            }
            perRequest[variant] = main / measured;
          }
          summary.push(row(storeLabel(store), request.name, perRequest));
        }
      } finally {
        for (const child of children) await child.stop();
      }
    }
  } finally {
    await upstream.stop();
    callgrind.cleanup();
  }
  printTable(
    `Instructions per request, main thread (callgrind), ${warmUp} requests to warm up and ${measured} counted per variant, ${connections} connections`,
    summary,
  );
}

function row(store: string, request: string, perRequest: Record<Variant, number>): Record<string, string | number> {
  const k = (variant: Variant) => round(perRequest[variant] / 1000, 1);
  const percent = (value: number) => `${round(value * 100, 1)} %`;
  return {
    store,
    request,
    "no key, k": k("no key"),
    "fresh key, k": k("fresh key"),
    "replayed key, k": k("replayed key"),
    "no limiter, k": k("no limiter"),
    "+ fresh key": percent(perRequest["fresh key"] / perRequest["no key"] - 1),
    "+ limiter": percent(perRequest["no key"] / perRequest["no limiter"] - 1),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [warmUp, measured] = process.argv.slice(2).map(Number);
  await run(warmUp, measured);
}
