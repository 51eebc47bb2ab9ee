// bench/operations: catalog:product_detail through the whole gateway (auth, scopes, validation, upstream call, output
// check, envelope, logging, metrics) against a bare node:http passthrough to the same sandbox upstream, with a third
// target between them: Fastify doing only the JSON forwarding any gateway on it must do (the framework floor).
// Run alone: node --import tsx bench/operations/index.ts [seconds per measurement] [rounds]
import { type LoadResult, median, printTable, round, runLoad } from "../shared/load.ts";
import { startTargets, type Target } from "./targets.ts";

interface Measurement extends LoadResult {
  proxyCpuMicros: number;
  sandboxCpuMicros: number;
}

export async function run(
  seconds = Number(process.env.BENCH_SECONDS ?? 5),
  rounds = Number(process.env.BENCH_ROUNDS ?? 3),
): Promise<void> {
  const started = await startTargets();
  try {
    const { sandbox, body, baseline: baselineTarget, floor, gateway: gatewayTarget } = started;
    const targets: Target[] = [baselineTarget, floor, gatewayTarget];

    // Warm each up, then measure them in turn, round after round: the machine's speed drifts over a run, and
    // interleaving gives every target the same share of it. Each run also reports the CPU time the proxy and the
    // sandbox spent per request answered (the load generator, the sandbox and the proxy share the machine's cores,
    // so a proxy's CPU per request is what bounds its throughput).
    for (const target of targets) await runLoad({ url: target.url, headers: target.headers, body, duration: 2 });
    const measure = async (target: Target): Promise<Measurement> => {
      const before = { proxy: target.proxy.cpuSeconds(), sandbox: sandbox.cpuSeconds() };
      const result = await runLoad({ url: target.url, headers: target.headers, body, duration: seconds });
      const answered = Math.max(result.requestsPerSecond * seconds, 1);
      const perRequest = (now: number, then: number) => ((now - then) * 1e6) / answered;
      return {
        ...result,
        proxyCpuMicros: perRequest(target.proxy.cpuSeconds(), before.proxy),
        sandboxCpuMicros: perRequest(sandbox.cpuSeconds(), before.sandbox),
      };
    };
    const runs = new Map<Target, Measurement[]>(targets.map((target) => [target, []]));
    for (let i = 0; i < rounds; i++) for (const target of targets) runs.get(target)?.push(await measure(target));

    const failed = [...runs.values()].flat().reduce((sum, m) => sum + m.non2xx + m.errors, 0);
    if (failed > 0) throw new Error(`${failed} requests failed`);
    const figures = targets.map((target) => {
      const of = (pick: (m: Measurement) => number) => median((runs.get(target) ?? []).map(pick));
      return {
        target: target.name,
        "req/s": round(
          of((m) => m.requestsPerSecond),
          0,
        ),
        "p50 ms": of((m) => m.p50Ms),
        "p99 ms": of((m) => m.p99Ms),
        "proxy CPU µs/req": round(
          of((m) => m.proxyCpuMicros),
          0,
        ),
        "sandbox CPU µs/req": round(
          of((m) => m.sandboxCpuMicros),
          0,
        ),
      };
    });
    printTable(`catalog:product_detail, 32 connections, ${rounds} rounds × ${seconds} s per target (medians)`, figures);
    const [base, frameworkFloor, through] = figures as [(typeof figures)[0], (typeof figures)[0], (typeof figures)[0]];
    const ratio = (key: "req/s" | "p99 ms" | "proxy CPU µs/req", of: typeof base) =>
      round(of[key] / Math.max(base[key], 1));
    console.log(`throughput ratio gateway/baseline: ${ratio("req/s", through)} (target >= 0.75)`);
    // The machine's speed drifts between rounds: each round's own ratio (its two targets measured minutes apart at
    // most) shows how far the median can be trusted.
    const baselineRuns = runs.get(baselineTarget) ?? [];
    const perRound = (runs.get(gatewayTarget) ?? []).map((m, i) =>
      round(m.requestsPerSecond / Math.max(baselineRuns[i]?.requestsPerSecond ?? 0, 1)),
    );
    console.log(`  each round: ${perRound.join(", ")}`);
    console.log(`p99 ratio gateway/baseline: ${ratio("p99 ms", through)} (target <= 1.5)`);
    console.log(`gateway peak RSS: ${round(gatewayTarget.proxy.peakRssMiB(), 1)} MiB (target < 200)`);
    console.log(
      `CPU per request, relative to the baseline: framework floor ${ratio("proxy CPU µs/req", frameworkFloor)}, ` +
        `gateway ${ratio("proxy CPU µs/req", through)}`,
    );
  } finally {
    await started.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [seconds, rounds] = process.argv.slice(2).map(Number);
  await run(seconds, rounds);
}
