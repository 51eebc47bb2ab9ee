// bench/operations/instructions: the instructions each target of bench/operations executes per request, counted by
// valgrind's callgrind. Throughput and CPU time on a shared machine move by a third between rounds minutes apart;
// the count of instructions for the same requests does not, so it shows what a change to the gateway's path costs and
// how far the gateway is from the baseline whatever the machine is doing.
// Each target runs under callgrind with counting off; after the warm-up requests (so that V8 has compiled the hot
// path) counting is switched on with callgrind_control for the measured requests, on one connection, then dumped.
// Run alone: node --import tsx bench/operations/instructions.ts [warm-up requests] [measured requests]
import { callgrindOrSkip } from "../shared/callgrind.ts";
import { printTable, round, runLoad } from "../shared/load.ts";
import { startTargets, type Target } from "./targets.ts";

export async function run(
  warmUp = Number(process.env.BENCH_WARM_UP ?? 4000),
  measured = Number(process.env.BENCH_REQUESTS ?? 3000),
): Promise<void> {
  const callgrind = callgrindOrSkip();
  if (!callgrind) return;
  // Under valgrind a Node.js process starts about fifty times slower.
  const started = await startTargets(callgrind.wrapper, 300_000);
  try {
    const { body } = started;
    const count = async (target: Target) => {
      const load = (amount: number) =>
        runLoad({ url: target.url, headers: target.headers, body, connections: 1, amount });
      await load(warmUp);
      const { main, all, result } = await callgrind.count(target.proxy.process.pid, () => load(measured));
      const failed = result.non2xx + result.errors;
      if (failed > 0) throw new Error(`${target.name}: ${failed} failed`);
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
    callgrind.cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [warmUp, measured] = process.argv.slice(2).map(Number);
  await run(warmUp, measured);
}
