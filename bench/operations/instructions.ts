// bench/operations/instructions: the instructions each target of bench/operations executes per request, counted by
// valgrind's callgrind. Throughput and CPU time on a shared machine move by a third between rounds minutes apart;
// the count of instructions for the same requests does not, so it shows what a change to the gateway's path costs and
// how far the gateway is from the baseline whatever the machine is doing.
// Each target runs under callgrind with counting off; after the warm-up requests (so that V8 has compiled the hot
// path) counting is switched on with callgrind_control for the measured requests, on one connection, then dumped.
// Run alone: node --import tsx bench/operations/instructions.ts [warm-up requests] [measured requests]
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { printTable, round, runLoad } from "../shared/load.ts";
import { startTargets, type Target } from "./targets.ts";

interface Count {
  /** The main thread's instructions per request: the event loop, where a Node.js server's requests are served. */
  main: number;
  /** Every thread's: V8's garbage collection helpers and compilers work beside the main thread. */
  all: number;
}

export async function run(
  warmUp = Number(process.env.BENCH_WARM_UP ?? 4000),
  measured = Number(process.env.BENCH_REQUESTS ?? 3000),
): Promise<void> {
  if (spawnSync("valgrind", ["--version"]).status !== 0) {
    console.log("valgrind is not installed (apt-get install valgrind): skipped");
    return;
  }
  // BENCH_CALLGRIND_DIR keeps the profiles there, for callgrind_annotate; otherwise they go to a temporary folder.
  const keptDir = process.env.BENCH_CALLGRIND_DIR;
  const outDir = keptDir ? path.resolve(keptDir) : fs.mkdtempSync(path.join(os.tmpdir(), "bench-instructions-"));
  fs.mkdirSync(outDir, { recursive: true });
  const wrapper = [
    "valgrind",
    "--tool=callgrind",
    "--quiet",
    "--instr-atstart=no",
    "--separate-threads=yes",
    `--callgrind-out-file=${path.join(outDir, "callgrind.%p")}`,
  ];
  // Under valgrind a Node.js process starts about fifty times slower.
  const started = await startTargets(wrapper, 300_000);
  try {
    const { body } = started;
    const count = async (target: Target): Promise<Count> => {
      const pid = String(target.proxy.process.pid);
      const load = (amount: number) =>
        runLoad({ url: target.url, headers: target.headers, body, connections: 1, amount });
      await load(warmUp);
      execFileSync("callgrind_control", ["--instr=on", pid], { stdio: "ignore" });
      const result = await load(measured);
      execFileSync("callgrind_control", ["--instr=off", pid], { stdio: "ignore" });
      execFileSync("callgrind_control", ["--dump", pid], { stdio: "ignore" });
      if (result.non2xx + result.errors > 0) throw new Error(`${target.name}: ${result.non2xx + result.errors} failed`);
      // One file per thread of the first dump: callgrind.PID.1-TT, its total on a line "totals: N".
      const threads = fs
        .readdirSync(outDir)
        .filter((name) => name.startsWith(`callgrind.${pid}.1-`))
        .map((name) => {
          const text = fs.readFileSync(path.join(outDir, name), "utf8");
          return { thread: name.slice(-2), total: Number(/^totals: (\d+)/m.exec(text)?.[1] ?? 0) };
        });
      const main = threads.find((thread) => thread.thread === "01")?.total ?? 0;
      const all = threads.reduce((sum, thread) => sum + thread.total, 0);
      return { main: main / measured, all: all / measured };
    };
    // One at a time, the baseline first: each ratio is to its count.
    const base = await count(started.baseline);
    const rows = [{ target: started.baseline, ...base }];
    for (const target of [started.floor, started.gateway]) rows.push({ target, ...(await count(target)) });
    printTable(
      `catalog:product_detail, instructions per request (callgrind), ${warmUp} requests to warm up, ${measured} counted`,
      rows.map(({ target, main, all }) => ({
        target: target.name,
        "main thread, k": round(main / 1000, 0),
        "ratio to baseline": round(main / base.main),
        "all threads, k": round(all / 1000, 0),
        "all, ratio": round(all / base.all),
      })),
    );
  } finally {
    await started.stop();
    if (keptDir) console.log(`callgrind profiles kept in ${outDir}`);
    else fs.rmSync(outDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [warmUp, measured] = process.argv.slice(2).map(Number);
  await run(warmUp, measured);
}
