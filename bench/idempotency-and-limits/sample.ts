// One measurement: autocannon in a child process (load-child.ts) against a URL, with this process's CPU time over
// the run divided by the requests answered — the gateways run in this process, the load generator does not.
import { spawn } from "node:child_process";
import path from "node:path";

export interface Sample {
  requestsPerSecond: number;
  /** CPU time of this process per request answered, in microseconds. */
  cpuMicrosPerRequest: number;
  p50Ms: number;
  p99Ms: number;
  failures: number;
}

const loadChild = path.join(import.meta.dirname, "load-child.ts");

export async function sample(
  url: string,
  headers: Record<string, string>,
  body: string,
  seconds: number,
  connections: number,
): Promise<Sample> {
  // idReplacement: "[<id>]" in a header becomes a unique id in every request (a fresh Idempotency-Key each time).
  const options = { url, method: "POST", headers, body, duration: seconds, connections, idReplacement: true };
  const child = spawn(process.execPath, ["--import", "tsx", loadChild, JSON.stringify(options)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const before = process.cpuUsage();
  await new Promise((resolve) => child.once("exit", resolve));
  const used = process.cpuUsage(before);
  const result = JSON.parse(out) as {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
    timeouts: number;
  };
  return {
    requestsPerSecond: result.requests.average,
    cpuMicrosPerRequest: (used.user + used.system) / Math.max(1, result.requests.total),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}
