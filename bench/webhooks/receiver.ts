// The receiver of bench/webhooks, in its own process: node:http on loopback answering 200 to every POST, printing
// its URL as the first line of standard output.
import http from "node:http";
import type { AddressInfo } from "node:net";

const server = http.createServer((request, response) => {
  request.resume();
  request.on("end", () => {
    response.writeHead(200, { "content-type": "text/plain" });
    response.end("ok");
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}/webhooks` })}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
