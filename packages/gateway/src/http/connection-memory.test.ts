// What a keep-alive connection holds on to: the requests it still has to answer, not those it answered. A client may
// send requests on one connection for as long as it likes; one refused before it ran (by the router, or by a hook
// before its body is read: 401, a Host missing) must not keep the requests before it alive until the connection closes.
import type { IncomingMessage } from "node:http";
import net from "node:net";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../test/harness.ts";

v8.setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => t?.close());

/** Sends `count` copies of `request` on one connection, and answers it (still open) once every answer has come. */
async function keptOpenAfter(request: string, count: number): Promise<net.Socket> {
  const { port, hostname } = new URL(t.url);
  const socket = net.connect(Number(port), hostname);
  socket.on("error", () => {});
  await new Promise((resolve) => socket.once("connect", resolve));
  let answers = 0;
  const all = new Promise<void>((resolve) =>
    socket.on("data", (chunk: Buffer) => {
      answers += chunk.toString("latin1").split("HTTP/1.1 ").length - 1;
      if (answers >= count) resolve();
    }),
  );
  socket.write(request.repeat(count));
  await all;
  return socket;
}

/** The requests of `requests` that are still reachable after a full garbage collection. */
async function alive(requests: WeakRef<IncomingMessage>[]): Promise<number> {
  // A WeakRef read during a job keeps its target until the job ends: collect from a later one.
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  return requests.filter((request) => request.deref() !== undefined).length;
}

it.each([
  ["that ran (GET /healthz)", "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"],
  ["refused by the router (a malformed percent-encoding)", "GET /v1/%zz/op HTTP/1.1\r\nHost: x\r\n\r\n"],
  ["refused before their body is read (no key: 401)", "GET /v1/operations HTTP/1.1\r\nHost: x\r\n\r\n"],
])("keeps none of the answered requests of a connection that stays open, %s", async (_, request) => {
  const seen: WeakRef<IncomingMessage>[] = [];
  const record = (raw: IncomingMessage) => seen.push(new WeakRef(raw));
  t.gateway.app.server.on("request", record);
  const count = 50;
  let socket: net.Socket;
  try {
    socket = await keptOpenAfter(request, count);
  } finally {
    t.gateway.app.server.off("request", record);
  }
  expect(seen).toHaveLength(count);
  // The last request's answer is the one the next request would wait for: at most it is still held.
  expect(await alive(seen.slice(0, -1))).toBe(0);
  socket.destroy();
});
