// GATEWAY_SEND_TIMEOUT_MS: a connection whose client takes none of an answer being written for the send timeout is
// destroyed, and its requests are logged as when the client closes the connection; a client that pauses for less
// than the timeout gets every answer whole; a connection with nothing to write (idle, its request still being worked
// on, or waiting for an Idempotency-Key) is not concerned. send-timeout.unit.test.ts has the rule's details.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../test/harness.ts";
import { captureLog, type LogCapture } from "../../test/log-capture.ts";
import { armFault } from "../../test/sandbox-faults.ts";

const sendTimeoutMs = 400;
let t: TestGateway;
let log: LogCapture;
let openApiBytes: number;
beforeAll(async () => {
  log = captureLog();
  t = await startTestGateway({
    env: { GATEWAY_SEND_TIMEOUT_MS: String(sendTimeoutMs) },
    logger: { level: "info", stream: log.stream },
  });
  openApiBytes = (await (await fetch(`${t.url}/openapi.json`)).arrayBuffer()).byteLength;
});
afterAll(async () => {
  await t?.close();
});

const sendTimeoutMessage = "connection closed: its client took none of the answer for the send timeout";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const until = async (condition: () => boolean | Promise<boolean>) => {
  while (!(await condition())) await sleep(20);
};

/**
 * `count` GETs of /openapi.json (over 400 KB each) pipelined on one connection, the last closing it: more than the
 * kernel's buffers of a loopback connection hold (about 4 MB), so that a client that does not read leaves an answer
 * waiting in the node.
 */
const pipelinedOpenApi = (count: number) =>
  "GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n".repeat(count - 1) +
  "GET /openapi.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";

function connect(): Promise<net.Socket> {
  const { port, hostname } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => resolve(socket));
    socket.once("error", reject);
  });
}

/** Reads everything the connection gives until it closes; `afterChunk` may pause the socket between chunks. */
function readAll(socket: net.Socket, afterChunk?: () => void): Promise<{ bytes: number; text: string }> {
  const chunks: Buffer[] = [];
  return new Promise((resolve) => {
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      afterChunk?.();
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      const all = Buffer.concat(chunks);
      resolve({ bytes: all.byteLength, text: all.toString("latin1") });
    });
  });
}

/** The answers read, in order: each one's status and request id, and whether its body arrived whole. */
function answersOf(text: string): { status: number; requestId: string; whole: boolean }[] {
  const answers = [];
  let at = 0;
  while (at < text.length) {
    const end = text.indexOf("\r\n\r\n", at);
    if (end < 0) throw new Error(`an answer's head stops short: ${text.slice(at, at + 200)}`);
    const head = text.slice(at, end);
    const length = Number(/^content-length: (\d+)$/im.exec(head)?.[1]);
    at = end + 4 + length;
    answers.push({
      status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1]),
      requestId: /^x-request-id: (\S+)$/im.exec(head)?.[1] ?? "",
      whole: at <= text.length,
    });
  }
  return answers;
}
const statusesOf = (text: string) => answersOf(text).map((answer) => (answer.whole ? answer.status : "cut short"));
const sendTimeoutLines = () => log.lines().filter((line) => line.msg === sendTimeoutMessage);
const loggedStatus = (requestId: string) =>
  log.lines().find((line) => line.msg === "request" && line.request_id === requestId)?.status;
const metricsText = async () => (await fetch(`${t.url}/metrics`)).text();
const sendTimeoutsCounted = async () => Number(/^gateway_send_timeouts_total (\d+)$/m.exec(await metricsText())?.[1]);

describe("a client that does not read its answer", () => {
  it("has its connection destroyed after the send timeout, its requests logged as when the client closes it", async () => {
    const before = sendTimeoutLines().length;
    const counted = await sendTimeoutsCounted();
    const count = 40;
    const socket = await connect();
    socket.pause();
    socket.write(pipelinedOpenApi(count));
    await until(() => sendTimeoutLines().length > before);
    // Read now: what the kernel held, and then the end of the connection the node destroyed.
    const received = readAll(socket);
    socket.resume();
    const { bytes, text } = await received;
    expect(bytes).toBeLessThan(count * openApiBytes);

    const line = sendTimeoutLines().at(-1);
    expect(line).toMatchObject({ level: 30, timeout_ms: sendTimeoutMs });
    const cut = line?.request_ids as string[];
    const answers = answersOf(text);
    // The answers the kernel took whole, then the one the node was writing, cut short; the requests behind it were
    // not answered at all.
    const whole = answers.filter((answer) => answer.whole);
    expect(answers.length).toBe(whole.length + 1);
    expect(whole.length + cut.length).toBe(count);
    expect(cut[0]).toBe(answers.at(-1)?.requestId);
    for (const { requestId } of whole) expect(loggedStatus(requestId)).toBe(200);
    // As when the client closes the connection itself: the answer cut short and the requests not answered are 499.
    expect(cut.map(loggedStatus)).toEqual(Array(cut.length).fill(499));
    expect(await sendTimeoutsCounted()).toBe(counted + 1);
  });
});

describe("a client that closes the connection while its answer is written", () => {
  it("is logged 499 for the answer cut short and the requests behind it, as the send timeout's", async () => {
    const timeoutsBefore = sendTimeoutLines().length;
    const requestLines = (() => {
      const before = log.lines().length;
      return () =>
        log
          .lines()
          .slice(before)
          .filter((line) => line.msg === "request");
    })();
    const count = 40;
    const socket = await connect();
    socket.pause();
    socket.write(pipelinedOpenApi(count));
    // The node writes what the kernel takes (those answers are logged 200) and then waits for the client.
    let whole = 0;
    while (whole === 0 || requestLines().length > whole) {
      whole = requestLines().length;
      await sleep(sendTimeoutMs / 4);
    }
    socket.resetAndDestroy();
    await until(() => requestLines().length === count);
    expect(requestLines().map((line) => line.status)).toEqual([
      ...Array(whole).fill(200),
      ...Array(count - whole).fill(499),
    ]);
    expect(sendTimeoutLines().length).toBe(timeoutsBefore);
  });
});

describe("a client that reads", () => {
  it("gets every answer whole after pausing for less than the send timeout", async () => {
    const before = sendTimeoutLines().length;
    const count = 12;
    const socket = await connect();
    socket.pause();
    const received = readAll(socket);
    socket.write(pipelinedOpenApi(count));
    await sleep(sendTimeoutMs / 4);
    socket.resume();
    const { text } = await received;
    expect(statusesOf(text)).toEqual(Array(count).fill(200));
    for (const { requestId } of answersOf(text)) expect(loggedStatus(requestId)).toBe(200);
    expect(sendTimeoutLines().length).toBe(before);
  });
});

describe("a connection with nothing to write", () => {
  it("is not closed by the send timeout while idle, while its request runs, or while it waits for an Idempotency-Key", async () => {
    const before = sendTimeoutLines().length;
    // Idle: a keep-alive connection serves a request after three send timeouts with nothing to do.
    const socket = await connect();
    const received = readAll(socket);
    socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    await sleep(3 * sendTimeoutMs);
    // Running, and waiting: two requests with the same Idempotency-Key, on two connections, whose upstream answers
    // after three send timeouts: one runs, the other waits for it and is then given its answer.
    await armFault(t.gateway.upstreamUrls.catalog, {
      delay_ms: 3 * sendTimeoutMs,
      count: 1,
      path_prefix: "/api/v1/site",
    });
    const siteMetadata =
      `POST /v1/catalog/site_metadata HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.key}\r\n` +
      "Idempotency-Key: send-timeout-wait\r\nConnection: close\r\n" +
      "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
    socket.write(siteMetadata);
    const second = await connect();
    const repeated = readAll(second);
    second.write(siteMetadata);
    await until(async () => /^gateway_idempotency_waiting 1$/m.test(await metricsText()));
    const [first, again] = await Promise.all([received, repeated]);
    expect(statusesOf(first.text)).toEqual([200, 200]);
    expect(statusesOf(again.text)).toEqual([200]);
    expect(`${first.text}${again.text}`.match(/^idempotent-replayed: true/gim)).toHaveLength(1);
    expect(sendTimeoutLines().length).toBe(before);
  });
});
