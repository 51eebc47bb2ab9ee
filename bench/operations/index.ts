// bench/operations: catalog:product_detail through the whole gateway (auth, scopes, validation, upstream call, output
// check, envelope, logging, metrics) against a bare node:http passthrough to the same sandbox upstream.
// Run alone: node --import tsx bench/operations/index.ts [seconds]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { printTable, round, runLoad } from "../shared/load.ts";
import { type Child, firstLine, runGatewayCli, startGatewayCli, startNode, waitForHttp } from "../shared/processes.ts";

const productId = "cat-prd-0042";
const upstreamPath = `/api/v1/items/${productId}`;

export async function run(seconds = Number(process.env.BENCH_SECONDS ?? 10)): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-operations-"));
  const sandbox = startGatewayCli(["sandbox", "--json", "--port-base", "0"], {}, "pipe");
  const children = [sandbox];
  try {
    const upstreams = JSON.parse(await firstLine(sandbox)) as Record<string, string>;
    const upstreamEnv = Object.fromEntries(
      Object.entries(upstreams).map(([id, url]) => [`GATEWAY_UPSTREAM_${id.toUpperCase()}_URL`, url]),
    );
    const env = { GATEWAY_DATA_DIR: dataDir, GATEWAY_LOG_LEVEL: "info", PORT: "18480", ...upstreamEnv };
    const { key } = JSON.parse(
      await runGatewayCli(
        ["keys", "create", "--scopes", "catalog", "--rate-limit", "100000000:1000000", "--json"],
        env,
      ),
    ) as {
      key: string;
    };
    const gateway = startGatewayCli(["serve"], env);
    children.push(gateway);
    const baseline = startNode(
      [path.join(import.meta.dirname, "baseline.ts")],
      {
        BASELINE_UPSTREAM_URL: upstreams.catalog ?? "",
        BASELINE_UPSTREAM_PATH: upstreamPath,
      },
      "pipe",
    );
    children.push(baseline);
    const baselineUrl = (JSON.parse(await firstLine(baseline)) as { url: string }).url;
    await waitForHttp("http://127.0.0.1:18480/readyz");

    const request = {
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ product_id: productId }),
    };
    const probe = await fetch("http://127.0.0.1:18480/v1/catalog/product_detail", { method: "POST", ...request });
    if (probe.status !== 200) throw new Error(`the gateway answered ${probe.status}: ${await probe.text()}`);

    // Warm both up, then measure each in turn.
    await runLoad({ url: `${baselineUrl}/`, ...request, duration: 2 });
    await runLoad({ url: "http://127.0.0.1:18480/v1/catalog/product_detail", ...request, duration: 2 });
    // Each run also reports the CPU time the proxy and the sandbox spent per request answered (2 cores are shared by
    // the load generator, the sandbox and the proxy, so a proxy's CPU per request is what bounds its throughput).
    const measure = async (url: string, proxy: Child) => {
      const before = { proxy: proxy.cpuSeconds(), sandbox: sandbox.cpuSeconds() };
      const result = await runLoad({ url, ...request, duration: seconds });
      const answered = result.requestsPerSecond * seconds;
      const perRequest = (now: number, then: number) => ((now - then) * 1e6) / Math.max(answered, 1);
      return {
        ...result,
        proxyCpuMicros: perRequest(proxy.cpuSeconds(), before.proxy),
        sandboxCpuMicros: perRequest(sandbox.cpuSeconds(), before.sandbox),
      };
    };
    const base = await measure(`${baselineUrl}/`, baseline);
    const through = await measure("http://127.0.0.1:18480/v1/catalog/product_detail", gateway);
    const rss = gateway.peakRssMiB();
    if (base.non2xx + through.non2xx + base.errors + through.errors > 0) {
      throw new Error(
        `failed requests: baseline ${base.non2xx + base.errors}, gateway ${through.non2xx + through.errors}`,
      );
    }
    printTable(`catalog:product_detail, ${seconds} s each, 32 connections`, [
      {
        target: "baseline passthrough",
        "req/s": round(base.requestsPerSecond, 0),
        "p50 ms": base.p50Ms,
        "p99 ms": base.p99Ms,
        non2xx: base.non2xx,
        "proxy CPU µs/req": round(base.proxyCpuMicros, 0),
        "sandbox CPU µs/req": round(base.sandboxCpuMicros, 0),
      },
      {
        target: "gateway",
        "req/s": round(through.requestsPerSecond, 0),
        "p50 ms": through.p50Ms,
        "p99 ms": through.p99Ms,
        non2xx: through.non2xx,
        "proxy CPU µs/req": round(through.proxyCpuMicros, 0),
        "sandbox CPU µs/req": round(through.sandboxCpuMicros, 0),
      },
    ]);
    console.log(
      `throughput ratio gateway/baseline: ${round(through.requestsPerSecond / base.requestsPerSecond)} (target >= 0.75)`,
    );
    console.log(`p99 ratio gateway/baseline: ${round(through.p99Ms / Math.max(base.p99Ms, 1))} (target <= 1.5)`);
    console.log(`gateway peak RSS: ${round(rss, 1)} MiB (target < 200)`);
  } finally {
    for (const child of children.reverse()) await child.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`)
  await run(Number(process.argv[2] ?? process.env.BENCH_SECONDS ?? 10));
