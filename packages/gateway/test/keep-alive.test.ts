// GATEWAY_KEEP_ALIVE_TIMEOUT_MS: how long an idle keep-alive connection stays open, announced in each answer's
// Keep-Alive header, so that it can outlast a load balancer's own idle timeout (600 s behind Google Cloud's).
import net from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "./harness.ts";

let t: TestGateway;
let byDefault: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ env: { GATEWAY_KEEP_ALIVE_TIMEOUT_MS: "1500" } });
  byDefault = await startTestGateway();
});
afterAll(async () => {
  await t?.close();
  await byDefault?.close();
});

/** One GET /healthz on a new connection: its answer's head, and how long after it the gateway closed the connection. */
function idleConnection(url: string): Promise<{ head: string; closedAfterMs: Promise<number> }> {
  const { port, hostname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
    let text = "";
    socket.setEncoding("utf8");
    socket.on("error", reject);
    socket.on("data", (chunk) => {
      text += chunk;
      if (!text.endsWith('{"status":"ok"}')) return;
      const answered = performance.now();
      const closedAfterMs = new Promise<number>((closed) =>
        socket.once("close", () => closed(performance.now() - answered)),
      );
      resolve({ head: text.slice(0, text.indexOf("\r\n\r\n")), closedAfterMs });
    });
  });
}

it("closes an idle connection after the keep-alive timeout it announced", async () => {
  const { head, closedAfterMs } = await idleConnection(t.url);
  expect(head.split("\r\n")).toEqual(expect.arrayContaining(["Connection: keep-alive", "Keep-Alive: timeout=1"]));
  const idle = await closedAfterMs;
  expect(idle).toBeGreaterThanOrEqual(1_400);
  expect(idle).toBeLessThan(5_000);
});

it("keeps an idle connection 72 s by default, above the common 60 s of load balancers", async () => {
  const { head } = await idleConnection(byDefault.url);
  expect(head.split("\r\n")).toEqual(expect.arrayContaining(["Connection: keep-alive", "Keep-Alive: timeout=72"]));
});
