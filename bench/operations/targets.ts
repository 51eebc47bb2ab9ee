// The three targets of bench/operations, started the same way for every instrument that measures them: the sandbox
// upstreams in their own process, the gateway (`gateway serve`, SQLite, a key with the largest rate limit), the
// baseline passthrough and the framework floor, each forwarding to the sandbox's catalogue.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type Child, firstLine, runGatewayCli, startGatewayCli, startNode, waitForHttp } from "../shared/processes.ts";

export const productId = "cat-prd-0042";
const upstreamPath = `/api/v1/items/${productId}`;
// BENCH_GATEWAY_PORT moves the gateway off its default port (another run on the machine may hold it).
const gatewayPort = Number(process.env.BENCH_GATEWAY_PORT ?? 18480);

export interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  proxy: Child;
}

export interface Targets {
  sandbox: Child;
  baseline: Target;
  floor: Target;
  gateway: Target;
  /** The request every target is sent: catalog:product_detail's input. */
  body: string;
  stop(): Promise<void>;
}

/**
 * Starts the sandbox and the three targets. `wrapper` runs each target's process under another command (valgrind);
 * `readyTimeoutMs` is how long a target may take to start answering.
 */
export async function startTargets(wrapper: readonly string[] = [], readyTimeoutMs = 30_000): Promise<Targets> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-operations-"));
  const sandbox = startGatewayCli(["sandbox", "--json", "--port-base", "0"], {}, "pipe");
  const children = [sandbox];
  const stop = async () => {
    for (const child of children.reverse()) await child.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const upstreams = JSON.parse(await firstLine(sandbox)) as Record<string, string>;
    const upstreamEnv = Object.fromEntries(
      Object.entries(upstreams).map(([id, url]) => [`GATEWAY_UPSTREAM_${id.toUpperCase()}_URL`, url]),
    );
    // BENCH_GATEWAY_LOG_LEVEL=warn leaves out the request log line, to measure what it costs.
    const logLevel = process.env.BENCH_GATEWAY_LOG_LEVEL ?? "info";
    const env = { GATEWAY_DATA_DIR: dataDir, GATEWAY_LOG_LEVEL: logLevel, PORT: String(gatewayPort), ...upstreamEnv };
    // The store is made first (migrate says nothing of a new store; keys create on one would say it made it).
    await runGatewayCli(["migrate"], env);
    const { key } = JSON.parse(
      await runGatewayCli(["keys", "create", "--scopes", "catalog", "--rate-limit", "1000000:1000000", "--json"], env),
    ) as { key: string };
    const gateway = startGatewayCli(["serve"], env, "ignore", wrapper);
    children.push(gateway);
    const comparisonEnv = { BASELINE_UPSTREAM_URL: upstreams.catalog ?? "", BASELINE_UPSTREAM_PATH: upstreamPath };
    const startComparison = async (file: string) => {
      const child = startNode([path.join(import.meta.dirname, file)], comparisonEnv, "pipe", "tsx", wrapper);
      children.push(child);
      return { child, url: `${(JSON.parse(await firstLine(child)) as { url: string }).url}/` };
    };
    const baseline = await startComparison("baseline.ts");
    const floor = await startComparison("framework-floor.ts");
    await waitForHttp(`http://127.0.0.1:${gatewayPort}/readyz`, readyTimeoutMs);

    const json = { "content-type": "application/json" };
    const targets: Targets = {
      sandbox,
      baseline: { name: "baseline passthrough", url: baseline.url, headers: json, proxy: baseline.child },
      floor: { name: "framework floor", url: floor.url, headers: json, proxy: floor.child },
      gateway: {
        name: "gateway",
        url: `http://127.0.0.1:${gatewayPort}/v1/catalog/product_detail`,
        headers: { ...json, authorization: `Bearer ${key}` },
        proxy: gateway,
      },
      body: JSON.stringify({ product_id: productId }),
      stop,
    };
    const probe = await fetch(targets.gateway.url, {
      method: "POST",
      headers: targets.gateway.headers,
      body: targets.body,
    });
    if (probe.status !== 200) throw new Error(`the gateway answered ${probe.status}: ${await probe.text()}`);
    return targets;
  } catch (error) {
    await stop();
    throw error;
  }
}
