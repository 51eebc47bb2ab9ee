// One gateway of bench/idempotency-and-limits in a process of its own, for the instrument that runs it under
// callgrind (instructions.ts). Store from BENCH_STORE, upstream from BENCH_UPSTREAM_URL, rate limits off when
// BENCH_RATE_LIMITS=off. Beside the gateway, a control server collects all garbage on each request to it (node
// --expose-gc), so that a count starts with no collection of the old generation pending. Prints {"url", "key",
// "control"} on its first line and serves until SIGTERM.
import "../../packages/gateway/src/cli/tick-shapes.ts";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { applyServingV8Settings } from "../../packages/gateway/src/cli/v8-settings.ts";
import type { BenchStore } from "../shared/stores.ts";
import { startGateway } from "./gateways.ts";

const collect = globalThis.gc;
if (!collect) throw new Error("host.ts runs with node --expose-gc");
applyServingV8Settings();
const node = await startGateway(
  process.env.BENCH_STORE as BenchStore,
  process.env.BENCH_UPSTREAM_URL ?? "",
  process.env.BENCH_RATE_LIMITS !== "off",
);
const control = http.createServer((_request, response) => {
  collect();
  response.end();
});
await new Promise<void>((resolve) => control.listen(0, "127.0.0.1", resolve));
const controlUrl = `http://127.0.0.1:${(control.address() as AddressInfo).port}/`;
process.stdout.write(`${JSON.stringify({ url: node.url, key: node.key, control: controlUrl })}\n`);
process.once("SIGTERM", () => {
  control.close();
  node.cleanup().then(() => process.exit(0));
});
