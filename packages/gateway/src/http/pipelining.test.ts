// Requests pipelined on one connection (RFC 9112 §9.3.2): each runs once the answer before it has gone out, and none
// runs behind an answer that closed the connection (§9.6), whatever framing or body that answer refused.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../test/harness.ts";
import { captureLog } from "../../test/log-capture.ts";
import { rawExchange } from "../../test/raw-http.ts";
import { armFault } from "../../test/sandbox-faults.ts";

let t: TestGateway;
const log = captureLog();
beforeAll(async () => {
  t = await startTestGateway({ logger: { level: "info", stream: log.stream } });
});
afterAll(async () => t?.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A create_api_key request naming the key `name`: a side effect that shows whether it ran. */
function createKey(name: string, extraHeaders = ""): string {
  const body = JSON.stringify({ name, scopes: ["opendata"] });
  return (
    "POST /v1/platform/create_api_key HTTP/1.1\r\nHost: x\r\n" +
    `Authorization: Bearer ${t.key}\r\nContent-Type: application/json\r\n${extraHeaders}` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

async function keyNames(): Promise<string[]> {
  const response = await t.call("platform", "list_api_keys", { limit: 100 });
  const json = (await response.json()) as { data: { api_keys: { name: string }[] } };
  return json.data.api_keys.map((key) => key.name);
}

/** The statuses and `Connection` headers of the answers read (each begins right after the body before it). */
function answersOf(text: string) {
  return [...text.matchAll(/HTTP\/1\.1 (\d+)[\s\S]*?^connection: (\S+)/gim)].map((m) => [Number(m[1]), m[2]]);
}

const search = (headers: string, body: string) =>
  "POST /v1/catalog/search_products HTTP/1.1\r\nHost: x\r\n" +
  `Authorization: Bearer ${t.key}\r\nContent-Type: application/json\r\n${headers}\r\n${body}`;

describe("a request pipelined behind an answer that closes the connection", () => {
  for (const [name, first, message] of [
    [
      "a transfer coding besides chunked",
      () => search("Transfer-Encoding: gzip, chunked\r\n", "2\r\n{}\r\n0\r\n\r\n"),
      "Transfer-Encoding gzip, chunked is not supported; send the body uncompressed (chunked is fine)",
    ],
    [
      "a chunked body over 1 MiB",
      () => search("Transfer-Encoding: chunked\r\n", `200000\r\n${"x".repeat(0x200000)}\r\n0\r\n\r\n`),
      "The request body is larger than the 1 MiB limit",
    ],
    ["a body that is not JSON", () => search("Content-Length: 3\r\n", "{x}"), /JSON/],
  ] as const) {
    it(`is not run after ${name}`, async () => {
      const keyName = `pipelined behind ${name}`;
      const before = log.lines().length;
      const answer = await rawExchange(t.url, first() + createKey(keyName));
      expect(answersOf(answer)).toEqual([[400, "close"]]);
      const [, body = ""] = answer.split("\r\n\r\n");
      expect(JSON.parse(body).error).toMatchObject({ code: "invalid_request", message });
      await sleep(200);
      expect(await keyNames()).not.toContain(keyName);
      // Logged, if Node parsed it before the connection closed, as a request its client never got an answer to, which
      // it may send again: nothing ran.
      const lines = log.lines().slice(before);
      const statuses = lines.filter((line) => line.path === "/v1/platform/create_api_key").map((line) => line.status);
      expect(statuses.filter((status) => status !== 499)).toEqual([]);
    });
  }
});

it("charges no rate-limit token for the requests it does not run", async () => {
  // One a minute: no token comes back while the test runs. A burst of 6.
  const created = await t.call("platform", "create_api_key", {
    scopes: ["*"],
    rate_limit: { per_minute: 1, burst: 6 },
  });
  const { key } = ((await created.json()) as { data: { key: string } }).data;
  const remaining = (answer: Response | string) => {
    const header =
      typeof answer === "string" ? /^ratelimit: (.*)$/im.exec(answer)?.[1] : answer.headers.get("ratelimit");
    return /;r=(\d+);/.exec(header ?? "")?.[1];
  };
  const send = () =>
    fetch(`${t.url}/v1/catalog/search_products`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: "{}",
    });
  // The key's first request authenticates it, so that those below are charged, when they are, as soon as they arrive.
  expect(remaining(await send())).toBe("5");
  const request = (body: string) =>
    "POST /v1/catalog/search_products HTTP/1.1\r\nHost: x\r\n" +
    `Authorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
  const answer = await rawExchange(t.url, request("{x}") + request("{}").repeat(3));
  expect(answersOf(answer)).toEqual([[400, "close"]]);
  // The refused body ran, as far as its parsing: it counts. The three behind it did not run: they do not.
  expect(remaining(answer)).toBe("4");
  expect(remaining(await send())).toBe("3");
});

it("closes the connection after an HTTP/1.0 request with a Transfer-Encoding, and runs nothing after it", async () => {
  const first = search("Connection: keep-alive\r\nTransfer-Encoding: chunked\r\n", "2\r\n{}\r\n0\r\n\r\n").replace(
    "HTTP/1.1",
    "HTTP/1.0",
  );
  const answer = await rawExchange(t.url, first + createKey("pipelined behind HTTP/1.0 chunked"));
  expect(answersOf(answer)).toEqual([[200, "close"]]);
  await sleep(200);
  expect(await keyNames()).not.toContain("pipelined behind HTTP/1.0 chunked");
});

/**
 * A connection whose first request, site_metadata, waits 1.5 s for its upstream: what is written after it is pipelined
 * behind an answer under way. Everything the connection receives is kept in `received.text`.
 */
async function behindASlowAnswer() {
  await armFault(t.gateway.upstreamUrls.catalog, { delay_ms: 1500, count: 1, path_prefix: "/api/v1/site" });
  const { port, hostname } = new URL(t.url);
  const socket = net.connect(Number(port), hostname);
  const received = { text: "" };
  socket.setEncoding("utf8");
  socket.on("data", (chunk) => {
    received.text += chunk;
  });
  const closed = new Promise((resolve) => socket.once("close", resolve));
  await new Promise((resolve) => socket.once("connect", resolve));
  socket.write(
    `POST /v1/catalog/site_metadata HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.key}\r\n` +
      "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
  );
  return { socket, received, closed };
}

describe("requests pipelined on a keep-alive connection", () => {
  it("run one after another, in order, each answered", async () => {
    const { socket, received, closed } = await behindASlowAnswer();
    socket.write(createKey("pipelined second") + createKey("pipelined third", "Connection: close\r\n"));
    // The first is held by its upstream: the two behind it have not run yet.
    await sleep(500);
    expect(await keyNames()).not.toContain("pipelined second");
    await closed;
    expect(answersOf(received.text)).toEqual([
      [200, "keep-alive"],
      [200, "keep-alive"],
      [200, "close"],
    ]);
    const bodies = received.text.split(/\r\n\r\n/).slice(1);
    expect(bodies[1]).toContain('"name":"pipelined second"');
    expect(bodies[2]).toContain('"name":"pipelined third"');
    const ids = [...received.text.matchAll(/^x-request-id: (\S+)/gim)].map((m) => m[1]);
    expect(new Set(ids).size).toBe(3);
  });

  it("leaves the bodies behind an answer under way unread, so the client's writes wait rather than the node's memory", async () => {
    const { socket, received } = await behindASlowAnswer();
    // 32 bodies of 900 KB (under the 1 MiB limit): read and parsed while the first answer waits, they were held in
    // memory (about 190 MB of RSS for 60 of 700 KB), however many a client sent.
    const body = JSON.stringify({ query: "x".repeat(900_000) });
    const search = `${"POST /v1/catalog/search_products HTTP/1.1\r\nHost: x\r\n"}Authorization: Bearer ${t.key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    for (let index = 0; index < 32; index++) socket.write(search);
    await sleep(1000);
    // Node stops reading the connection once the body it holds unread fills its buffer: most stays with the client.
    expect(socket.writableLength).toBeGreaterThan(16 * 900_000);
    // Then each is read, run and answered in its turn.
    const answered = () => (received.text.match(/HTTP\/1\.1 \d{3} /g) ?? []).length;
    for (const deadline = performance.now() + 30_000; answered() < 33 && performance.now() < deadline; )
      await sleep(50);
    expect(answered()).toBe(33);
    socket.destroy();
  }, 60_000);
});
