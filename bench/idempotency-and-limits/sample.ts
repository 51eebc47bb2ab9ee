// One measurement: autocannon in a child process (load-child.ts) against a URL, with this process's CPU time over
// the run divided by the requests answered — the gateways run in this process, the load generator does not — and, on
// PostgreSQL, the database server's CPU time the same way.
import { execFileSync, spawn } from "node:child_process";
import path from "node:path";
import { clockTicksPerSecond, cpuTicksOf } from "../shared/processes.ts";

export interface Sample {
  requestsPerSecond: number;
  /** CPU time of this process per request answered, in microseconds. */
  cpuMicrosPerRequest: number;
  /** CPU time of the local PostgreSQL server's processes per request answered, when asked for, in microseconds. */
  databaseCpuMicrosPerRequest: number | undefined;
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
  measureDatabase = false,
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
  // Read outside this process's window: pgrep and the /proc reads are not the gateways' work.
  const databaseBefore = measureDatabase ? postgresCpuTicks() : undefined;
  const before = process.cpuUsage();
  await new Promise((resolve) => child.once("exit", resolve));
  const used = process.cpuUsage(before);
  const databaseSeconds = databaseBefore && cpuSecondsSince(databaseBefore, postgresCpuTicks());
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
    databaseCpuMicrosPerRequest:
      databaseSeconds === undefined ? undefined : (databaseSeconds * 1e6) / Math.max(1, result.requests.total),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

/** CPU time (clock ticks) of each process named postgres on this machine: the server and its backends. */
function postgresCpuTicks(): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const pid of execFileSync("pgrep", ["-x", "postgres"], { encoding: "utf8" }).trim().split("\n")) {
    try {
      ticks.set(pid, cpuTicksOf(pid));
    } catch {
      // A backend that ended between pgrep and the read.
    }
  }
  return ticks;
}

/**
 * Per process, so that a backend ending in between (a pool closing an idle connection) takes away only what it used
 * since the first reading, not all it ever used; a backend started in between counts from zero.
 */
function cpuSecondsSince(before: Map<string, number>, after: Map<string, number>): number {
  let ticks = 0;
  for (const [pid, now] of after) ticks += now - (before.get(pid) ?? 0);
  return ticks / clockTicksPerSecond;
}
