// The framework floor of bench/operations: Fastify doing only what any JSON gateway built on it must do — parse the
// JSON body, forward to the same upstream with the same kind of undici pool, parse the provider's JSON and answer an
// envelope. No auth, validation, mapping, logging, metrics or breaker. Between the baseline and the gateway, it shows
// which part of the gateway's cost is the framework and JSON, and which is the gateway's own work.
import "../../packages/gateway/src/cli/tick-shapes.ts";
import Fastify from "fastify";
import { Pool } from "undici";

const upstream = process.env.BASELINE_UPSTREAM_URL ?? "";
const upstreamPath = process.env.BASELINE_UPSTREAM_PATH ?? "/";
const pool = new Pool(upstream, { connections: 64, pipelining: 1, keepAliveTimeout: 30_000 });
const app = Fastify({ logger: false });

app.post("/", async () => {
  const answer = await pool.request({ method: "GET", path: upstreamPath, headers: { accept: "application/json" } });
  const body = (await answer.body.json()) as { item: unknown };
  return { data: body.item, meta: { source: "catalog", fetched_at: new Date().toISOString() }, pagination: null };
});

const url = await app.listen({ port: Number(process.env.PORT ?? 0), host: "127.0.0.1" });
process.stdout.write(`${JSON.stringify({ url })}\n`);
process.on("SIGTERM", () => app.close().then(() => pool.close().then(() => process.exit(0))));
