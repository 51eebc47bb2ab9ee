// `gateway serve` and SIGTERM, as an orchestrator stops a node: it stops accepting connections at once, finishes the
// requests in flight, answering each with `Connection: close` (so that no client sends another request on a
// connection about to close; one pipelined behind it is left unprocessed, as RFC 9112 §9.6 asks), closes each
// connection once answered rather than at the keep-alive timeout, then exits 0. (SQLite: a fresh data directory.)
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { startCli } from "./cli.ts";
import { freePort, testStore } from "./harness.ts";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "serve-shutdown-"));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether a new TCP connection to the port is accepted. */
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });

/** The HTTP/1.1 answers read from one connection, in order: status, lower-cased headers, JSON body. */
function answersOf(bytes: Buffer) {
  const answers: { status: number; headers: Record<string, string>; body: Record<string, any> }[] = [];
  let rest = bytes;
  while (rest.length > 0) {
    const headEnd = rest.indexOf("\r\n\r\n");
    const [statusLine = "", ...lines] = rest.subarray(0, headEnd).toString("latin1").split("\r\n");
    const headers = Object.fromEntries(
      lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
    );
    // Content-Length counts bytes, and the bodies hold Japanese text.
    const bodyEnd = headEnd + 4 + Number(headers["content-length"]);
    answers.push({
      status: Number(statusLine.split(" ")[1]),
      headers,
      body: JSON.parse(rest.subarray(headEnd + 4, bodyEnd).toString("utf8")),
    });
    rest = rest.subarray(bodyEnd);
  }
  return answers;
}

/** A connection to the gateway: what it wrote, and everything read from it once the gateway has closed it. */
function connection(port: number) {
  const socket = net.connect(port, "127.0.0.1");
  const closed = new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("close", () => resolve(Buffer.concat(chunks)));
    socket.on("error", reject);
  });
  return { send: (text: string) => socket.write(text), closed };
}

it.skipIf(testStore() !== "sqlite")(
  "on SIGTERM refuses new connections, answers every request sent, closes each connection once it is idle, exits 0",
  { timeout: 120_000 },
  async () => {
    const port = await freePort();
    const serve = startCli(["serve"], {
      env: { GATEWAY_DATA_DIR: dataDir, GATEWAY_DATABASE_URL: "", PORT: String(port) },
    });
    let drainTimer: NodeJS.Timeout | undefined;
    try {
      const listening = JSON.parse(await serve.waitForLine('"msg":"gateway listening"')) as {
        upstreams: Record<string, string>;
      };
      const key = fs.readFileSync(path.join(dataDir, "first-api-key"), "utf8").trimEnd();
      // The catalogue's upstream holds the next two product requests for 1.5 s: the requests in flight at SIGTERM.
      const fault = await fetch(`${listening.upstreams.catalog}/_sandbox/faults`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ delay_ms: 1500, count: 2, path_prefix: "/api/v1/items/" }),
      });
      expect(fault.status).toBe(201);
      const body = JSON.stringify({ product_id: "cat-prd-0042" });
      const request =
        "POST /v1/catalog/product_detail HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
        `Authorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;

      // Two keep-alive connections, each with a request waiting for the upstream when SIGTERM comes.
      const sendsAgain = connection(port);
      const goesIdle = connection(port);
      sendsAgain.send(request);
      goesIdle.send(request);
      await sleep(300);
      const exited = new Promise<number | null>((resolve) => serve.child.once("exit", (code) => resolve(code)));
      serve.child.kill("SIGTERM");
      // The keep-alive timeout is 72 s: a drain that waited for it would still be running 20 s after SIGTERM.
      const late = Symbol("late");
      const deadline = new Promise<typeof late>((resolve) => {
        drainTimer = setTimeout(() => resolve(late), 20_000);
      });
      const soon = async <T>(promise: Promise<T>): Promise<T> => {
        const settled = await Promise.race([promise, deadline]);
        if (settled === late) throw new Error("the gateway was still draining 20 s after SIGTERM");
        return settled as T;
      };
      const shutdown = await serve.waitForLine('"msg":"shutting down: finishing in-flight requests"');
      expect(JSON.parse(shutdown)).toMatchObject({ level: 30, signal: "SIGTERM" });
      expect(await accepts(port)).toBe(false);
      // A second request pipelined on a busy connection while the gateway is closing: the answer to the first says
      // the connection closes, and the second is not processed (the client may retry it: nothing ran).
      sendsAgain.send(request);

      const again = answersOf(await soon(sendsAgain.closed));
      expect(again.map((answer) => [answer.status, answer.headers.connection])).toEqual([[200, "close"]]);
      // The other answers its request the same way, and is closed then rather than at the keep-alive timeout.
      const idle = answersOf(await soon(goesIdle.closed));
      expect(idle.map((answer) => [answer.status, answer.headers.connection])).toEqual([[200, "close"]]);
      for (const answer of [...again, ...idle]) {
        expect(answer.headers["x-request-id"]).toMatch(/^req_[0-9A-Za-z]{20}$/);
        expect(answer.body.data.id).toBe("cat-prd-0042");
      }
      expect(await soon(exited)).toBe(0);
      expect(JSON.parse(await serve.waitForLine('"msg":"shut down'))).toMatchObject({
        level: 30,
        signal: "SIGTERM",
        msg: "shut down: every request answered and the pools closed",
      });
    } finally {
      clearTimeout(drainTimer);
      await serve.stop();
    }
  },
);

/** `gateway serve` on a new SQLite data dir, with one request held 8 s by its upstream: stop it in `test`. */
async function withOneRequestHeld(
  name: string,
  env: Record<string, string>,
  test: (serve: ReturnType<typeof startCli>, exited: Promise<number | null>) => Promise<void>,
): Promise<void> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `serve-shutdown-${name}-`));
  const serve = startCli(["serve"], {
    env: { GATEWAY_DATA_DIR: dir, GATEWAY_DATABASE_URL: "", PORT: String(port), ...env },
  });
  try {
    const listening = JSON.parse(await serve.waitForLine('"msg":"gateway listening"')) as {
      upstreams: Record<string, string>;
    };
    const key = fs.readFileSync(path.join(dir, "first-api-key"), "utf8").trimEnd();
    await fetch(`${listening.upstreams.catalog}/_sandbox/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ delay_ms: 8000, count: 1, path_prefix: "/api/v1/items/" }),
    });
    const held = fetch(`http://127.0.0.1:${port}/v1/catalog/product_detail`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ product_id: "cat-prd-0042" }),
    }).catch((error: unknown) => error);
    await sleep(300);
    const exited = new Promise<number | null>((resolve) => serve.child.once("exit", (code) => resolve(code)));
    await test(serve, exited);
    await held;
  } finally {
    await serve.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

it.skipIf(testStore() !== "sqlite")(
  "exits with 1 when the drain outlasts GATEWAY_SHUTDOWN_TIMEOUT_MS, saying so",
  { timeout: 60_000 },
  () =>
    withOneRequestHeld("late", { GATEWAY_SHUTDOWN_TIMEOUT_MS: "1000" }, async (serve, exited) => {
      const signalled = performance.now();
      serve.child.kill("SIGTERM");
      expect(await exited).toBe(1);
      const took = performance.now() - signalled;
      expect(took).toBeGreaterThanOrEqual(900);
      expect(took).toBeLessThan(6000);
      const line = await serve.waitForLine("shutdown did not finish in time");
      expect(JSON.parse(line)).toMatchObject({
        level: 50,
        timeout_ms: 1000,
        msg: "shutdown did not finish in time (GATEWAY_SHUTDOWN_TIMEOUT_MS): exiting without it",
      });
    }),
);

it.skipIf(testStore() !== "sqlite")(
  "exits with 1 at a second signal during the drain, saying so",
  { timeout: 60_000 },
  () =>
    withOneRequestHeld("again", {}, async (serve, exited) => {
      serve.child.kill("SIGTERM");
      await serve.waitForLine('"msg":"shutting down: finishing in-flight requests"');
      serve.child.kill("SIGTERM");
      expect(await exited).toBe(1);
      const line = await serve.waitForLine("second signal during shutdown");
      expect(JSON.parse(line)).toMatchObject({
        level: 50,
        signal: "SIGTERM",
        msg: "second signal during shutdown: exiting without finishing it",
      });
    }),
);

it.skipIf(testStore() !== "sqlite")(
  "with GATEWAY_SHUTDOWN_DELAY_MS serves on after SIGTERM, /readyz saying it is shutting down, then drains and exits 0",
  { timeout: 60_000 },
  async () => {
    const port = await freePort();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "serve-shutdown-delay-"));
    const serve = startCli(["serve"], {
      env: { GATEWAY_DATA_DIR: dir, GATEWAY_DATABASE_URL: "", PORT: String(port), GATEWAY_SHUTDOWN_DELAY_MS: "3000" },
    });
    try {
      await serve.waitForLine('"msg":"gateway listening"');
      const key = fs.readFileSync(path.join(dir, "first-api-key"), "utf8").trimEnd();
      const base = `http://127.0.0.1:${port}`;
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      const exited = new Promise<number | null>((resolve) => serve.child.once("exit", (code) => resolve(code)));
      const signalled = performance.now();
      serve.child.kill("SIGTERM");
      expect(JSON.parse(await serve.waitForLine('"msg":"shutting down: not ready'))).toMatchObject({
        level: 30,
        signal: "SIGTERM",
        delay_ms: 3000,
        msg: "shutting down: not ready, serving on until GATEWAY_SHUTDOWN_DELAY_MS has passed",
      });

      // Within the delay: not ready, yet new connections are accepted and requests on them served.
      const readyz = await fetch(`${base}/readyz`);
      expect(readyz.status).toBe(500);
      expect(await readyz.json()).toEqual({
        error: {
          code: "internal_error",
          message: "This node is shutting down: send new requests to another node",
          request_id: readyz.headers.get("x-request-id"),
          retryable: false,
        },
      });
      const served = await fetch(`${base}/v1/catalog/product_detail`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ product_id: "cat-prd-0042" }),
      });
      expect(served.status).toBe(200);

      await serve.waitForLine('"msg":"shutting down: finishing in-flight requests"');
      expect(performance.now() - signalled).toBeGreaterThanOrEqual(2900);
      expect(await exited).toBe(0);
      // A shutdown is not a failure: the not-ready answers were not logged as internal errors.
      expect(serve.output()).not.toContain("internal error");
    } finally {
      await serve.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);
