// The `gateway` CLI as a child process, for the tests that use it as an operator does: run from its TypeScript sources
// through tsx at the repository's root (or an installed package's bin), with the test's variables over this process's
// environment.
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";

const repoRoot = path.resolve(import.meta.dirname, "../../..");

export interface CliOptions {
  /** Over this process's environment; a variable set to undefined is left out. */
  env?: Record<string, string | undefined>;
  /** Written to standard input, which is then closed; without it standard input is empty. */
  input?: string | Uint8Array;
  /** An installed CLI to run (the path of its `gateway` bin) instead of the sources; run in `cwd`. */
  bin?: string;
  cwd?: string;
}

export interface CliResult {
  /** null when a signal ended the process. */
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Both streams in the order their output arrived. */
  output(): string;
  /** The first whole line of standard output with `text` in it; rejects if the output ends first or after timeoutMs. */
  waitForLine(text: string | RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves once GET `url` answers 2xx; rejects once the process has ended or printed its error, or after timeoutMs. */
  waitForHttp(url: string, timeoutMs?: number): Promise<void>;
  /** Sends `signal` and resolves once the process has exited (SIGKILL after 10 s); at once if it has already. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Runs `gateway <args>` to its end. One still running after timeoutMs is killed (SIGKILL): its code is then null. */
export async function runCli(args: string[], options: CliOptions & { timeoutMs?: number } = {}): Promise<CliResult> {
  const cli = startCli(args, options);
  const timer =
    options.timeoutMs === undefined ? undefined : setTimeout(() => cli.child.kill("SIGKILL"), options.timeoutMs);
  // "close" rather than "exit": the output may still be arriving when the process has exited.
  const code = await new Promise<number | null>((resolve) => cli.child.once("close", resolve));
  clearTimeout(timer);
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

/** Starts `gateway <args>` (a server, a sandbox) and collects what it writes. */
export function startCli(args: string[], options: CliOptions = {}): CliProcess {
  const command = options.bin === undefined ? ["--import", "tsx", "packages/gateway/src/cli/main.ts"] : [options.bin];
  const child = spawn(process.execPath, [...command, ...args], {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, ...options.env },
    stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
  });
  child.stdin?.end(options.input);
  let stdout = "";
  let stderr = "";
  let output = "";
  // "close" rather than "exit": once its output has closed, what a failure shows is whole.
  let closed = false;
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    output += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
    output += chunk;
  });
  child.once("close", () => {
    closed = true;
  });

  /** Polls `check` until it gives a value; fails once `over()` held before a check that gave none. */
  async function until<T>(
    what: string,
    check: () => Promise<T | undefined> | T | undefined,
    over: () => boolean,
    timeoutMs: number,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const ended = over();
      const value = await check();
      if (value !== undefined) return value;
      if (ended || Date.now() > deadline) {
        const when = ended ? `(code ${child.exitCode ?? child.signalCode})` : `within ${timeoutMs} ms`;
        throw new Error(`gateway ${args.join(" ")}: no ${what} ${when}\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    output: () => output,
    waitForLine(text, timeoutMs = 60_000) {
      const matches = (line: string) => (typeof text === "string" ? line.includes(text) : text.test(line));
      // Up to the last newline: a line still being written is not one yet.
      const whole = () =>
        stdout
          .slice(0, stdout.lastIndexOf("\n") + 1)
          .split("\n")
          .slice(0, -1)
          .find(matches);
      return until(`line with ${text}`, whole, () => closed, timeoutMs);
    },
    waitForHttp(url, timeoutMs = 60_000) {
      // A listener that never answers (another process on the port) must not hold up the next look at the process.
      const answers = async () =>
        (await fetch(url, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined))?.ok ? true : undefined;
      // The CLI's error, "gateway: …", may come before its end (a pool or worker still open).
      const failed = () => closed || /^gateway: /m.test(stderr);
      return until(`answer from ${url}`, answers, failed, timeoutMs).then(() => {});
    },
    stop: (signal) => stopProcess(child, signal),
  };
}

/** Sends `signal` (SIGTERM) to a child process and resolves once it has exited; SIGKILL if it has not after 10 s. */
export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const force = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    child.kill(signal);
  });
}
