// Instructions counted by valgrind's callgrind, for the instruments that need a figure the machine's load does not
// move. A process runs under callgrind with counting off; `count` switches counting on with callgrind_control for
// what it is given to run, then dumps, and reads the dump's totals: the main thread's (the event loop, where a
// Node.js server's requests are served) and every thread's (V8's garbage collection helpers and compilers, and any
// worker, work beside it).
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export interface Instructions {
  main: number;
  all: number;
}

/** A Callgrind, or undefined (said on standard output) where valgrind is not installed. */
export function callgrindOrSkip(): Callgrind | undefined {
  if (spawnSync("valgrind", ["--version"]).status === 0) return new Callgrind();
  console.log("valgrind is not installed (apt-get install valgrind): skipped");
  return undefined;
}

export class Callgrind {
  /** The command and options to run a process under, counting off until `count`. */
  readonly wrapper: readonly string[];
  private readonly dir: string;
  private readonly kept: boolean;
  private readonly dumps = new Map<number, number>();

  /** Profiles go to BENCH_CALLGRIND_DIR when it is set (kept, for callgrind_annotate), else to a temporary folder. */
  constructor() {
    const keptDir = process.env.BENCH_CALLGRIND_DIR;
    this.kept = keptDir !== undefined;
    this.dir = keptDir ? path.resolve(keptDir) : fs.mkdtempSync(path.join(os.tmpdir(), "bench-callgrind-"));
    fs.mkdirSync(this.dir, { recursive: true });
    this.wrapper = [
      "valgrind",
      "--tool=callgrind",
      "--quiet",
      "--instr-atstart=no",
      "--separate-threads=yes",
      `--callgrind-out-file=${path.join(this.dir, "callgrind.%p")}`,
    ];
  }

  /** The instructions process `pid` executes while `work` runs, and what `work` answered. */
  async count<T>(pid: number | undefined, work: () => Promise<T>): Promise<Instructions & { result: T }> {
    if (pid === undefined) throw new Error("the process to count has not started");
    const control = (option: string) => execFileSync("callgrind_control", [option, String(pid)], { stdio: "ignore" });
    control("--instr=on");
    let result: T;
    try {
      result = await work();
    } finally {
      control("--instr=off");
    }
    control("--dump");
    const dump = (this.dumps.get(pid) ?? 0) + 1;
    this.dumps.set(pid, dump);
    // One file per thread of dump N: callgrind.PID.N-TT, its total on a line "totals: N".
    const threads = fs
      .readdirSync(this.dir)
      .filter((name) => name.startsWith(`callgrind.${pid}.${dump}-`))
      .map((name) => {
        const text = fs.readFileSync(path.join(this.dir, name), "utf8");
        return { thread: name.slice(-2), total: Number(/^totals: (\d+)/m.exec(text)?.[1] ?? 0) };
      });
    if (threads.length === 0) throw new Error(`callgrind wrote no dump ${dump} for process ${pid}`);
    return {
      main: threads.find((thread) => thread.thread === "01")?.total ?? 0,
      all: threads.reduce((sum, thread) => sum + thread.total, 0),
      result,
    };
  }

  cleanup(): void {
    if (this.kept) console.log(`callgrind profiles kept in ${this.dir}`);
    else fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
