// The baseline of bench/operations: the least a gateway could do — a node:http server that forwards each POST to the
// same upstream endpoint with the same kind of undici pool and returns its body. No auth, validation or envelope.
import "../../packages/gateway/src/cli/tick-shapes.ts";
import http from "node:http";
import { Pool } from "undici";

const upstream = process.env.BASELINE_UPSTREAM_URL ?? "";
const upstreamPath = process.env.BASELINE_UPSTREAM_PATH ?? "/";
const pool = new Pool(upstream, { connections: 64, pipelining: 1, keepAliveTimeout: 30_000 });

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", async () => {
    try {
      const answer = await pool.request({ method: "GET", path: upstreamPath, headers: { accept: "application/json" } });
      const body = await answer.body.text();
      response.writeHead(answer.statusCode, { "content-type": "application/json" });
      response.end(body);
    } catch {
      response.writeHead(502);
      response.end();
    }
  });
});

server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
});
process.on("SIGTERM", () => server.close(() => pool.close().then(() => process.exit(0))));
