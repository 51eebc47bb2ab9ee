// The upstream of the benchmark's provider: a node:http server answering every GET /items/{id} with a small JSON
// item. Prints {"url"} on its first line.
import http from "node:http";

const server = http.createServer((request, response) => {
  const id = decodeURIComponent((request.url ?? "").split("/").pop() ?? "");
  const body = JSON.stringify({ id, title: "Cast-iron kettle", price: { amount: 12800, currency: "JPY" } });
  response.writeHead(200, { "content-type": "application/json" });
  response.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
