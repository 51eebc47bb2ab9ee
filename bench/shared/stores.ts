// Which stores a benchmark measures: both by default, one with BENCH_STORES=sqlite (or postgres).
export type BenchStore = "sqlite" | "postgres";

export const benchStores = (): BenchStore[] =>
  (process.env.BENCH_STORES ?? "sqlite,postgres")
    .split(",")
    .filter((name): name is BenchStore => name === "sqlite" || name === "postgres");
