// npm run bench: every benchmark in turn, each printing its figures and its ratio to a baseline measured in the same
// run. `npm run bench -- operations` runs one.
const benchmarks: Record<string, () => Promise<{ run(): Promise<void> }>> = {
  operations: () => import("./operations/index.ts"),
  "operations-instructions": () => import("./operations/instructions.ts"),
  webhooks: () => import("./webhooks/index.ts"),
  "webhooks-claim-scan": () => import("./webhooks/claim-scan.ts"),
  "idempotency-and-limits": () => import("./idempotency-and-limits/index.ts"),
  "idempotency-and-limits-instructions": () => import("./idempotency-and-limits/instructions.ts"),
};

const only = process.argv.slice(2);
for (const [name, load] of Object.entries(benchmarks)) {
  if (only.length > 0 && !only.includes(name)) continue;
  console.log(`\n=== bench/${name} ===`);
  const { run } = await load();
  await run();
}
