// Child processes for benchmarks: the gateway, the sandboxes and baselines each run in their own process, so that a
// measured server does not share its event loop with the load generator.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

export const repoRoot = path.resolve(import.meta.dirname, "..", "..");
// The gateway as users run it: the built bundle behind the `gateway` bin (`npm run bench` builds it first).
const cli = path.join(repoRoot, "packages/gateway/bin/gateway.js");

export interface Child {
  process: ChildProcess;
  /** Peak resident set size so far, in MiB (VmHWM). */
  peakRssMiB(): number;
  /** CPU time used so far (user + system), in seconds. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

// USER_HZ: 100 on every Linux architecture Node supports.
export const clockTicksPerSecond = 100;

/** CPU time a process has used so far (user + system), in clock ticks; throws when it is gone. */
export function cpuTicksOf(pid: number | string): number {
  // /proc/PID/stat: fields 14 and 15 (utime, stime), counted after the ")" that ends the name.
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * Starts a Node.js script in its own process. `wrapper` runs it under another command (valgrind and its options):
 * the process, its pid and its CPU time are then the wrapper's, which for valgrind is the same process.
 */
export function startNode(
  args: string[],
  env: Record<string, string>,
  stdout: "ignore" | "pipe" = "ignore",
  loader: "tsx" | "none" = "tsx",
  wrapper: readonly string[] = [],
): Child {
  const nodeArgs = [...(loader === "tsx" ? ["--import", "tsx"] : []), ...args];
  const [command, ...commandArgs] = [...wrapper, process.execPath, ...nodeArgs] as [string, ...string[]];
  const child = spawn(command, commandArgs, {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ["ignore", stdout, "inherit"],
  });
  return {
    process: child,
    peakRssMiB() {
      const status = fs.readFileSync(`/proc/${child.pid}/status`, "utf8");
      const kib = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
      return kib / 1024;
    },
    cpuSeconds() {
      return cpuTicksOf(String(child.pid)) / clockTicksPerSecond;
    },
    stop() {
      return new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      });
    },
  };
}

export const startGatewayCli = (
  args: string[],
  env: Record<string, string>,
  stdout: "ignore" | "pipe" = "ignore",
  wrapper: readonly string[] = [],
) => startNode([cli, ...args], env, stdout, "none", wrapper);

/** Runs a CLI command to completion and answers its standard output. */
export async function runGatewayCli(args: string[], env: Record<string, string>): Promise<string> {
  const child = startGatewayCli(args, env, "pipe");
  let out = "";
  child.process.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.process.once("exit", resolve));
  if (code !== 0) throw new Error(`gateway ${args.join(" ")} exited with ${code}`);
  return out;
}

/** Reads the first line of standard output (a server printing its URLs as JSON). */
export function firstLine(child: Child): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = "";
    child.process.stdout?.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      const newline = buffer.indexOf("\n");
      if (newline >= 0) resolve(buffer.slice(0, newline));
    });
    child.process.once("exit", (code) => reject(new Error(`process exited with ${code} before printing`)));
  });
}

export async function waitForHttp(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}
