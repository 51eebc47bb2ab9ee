// A client that sends its headers and then its body a byte at a time, or not at all, holds no connection past
// GATEWAY_REQUEST_TIMEOUT_MS: the request is answered with the envelope's 400 and the connection closed.
import net from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "./harness.ts";
import { captureLog } from "./log-capture.ts";
import { rawExchange } from "./raw-http.ts";

const log = captureLog();
let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({
    env: { GATEWAY_REQUEST_TIMEOUT_MS: "1000" },
    logger: { level: "info", stream: log.stream },
  });
});
afterAll(() => t?.close());

it("answers a body that stops arriving with 400 within the request timeout, and closes the connection", async () => {
  const started = performance.now();
  const answer = await rawExchange(
    t.url,
    `POST /v1/platform/list_api_keys HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.key}\r\n` +
      "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
  );
  const took = performance.now() - started;
  expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 400 Bad Request");
  const body = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4));
  expect(body.error).toMatchObject({
    code: "invalid_request",
    message: "The request was not received completely in time",
  });
  expect(took).toBeGreaterThanOrEqual(900);
  expect(took).toBeLessThan(5_000);
});

it("answers a request whose body stopped arriving under that request's id, and logs it once, as the 400 it got", async () => {
  const answer = await rawExchange(
    t.url,
    `POST /v1/opendata/lookup_postal_code HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.key}\r\n` +
      "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
  );
  const requestId = /\r\nx-request-id: (\S+)\r\n/.exec(answer)?.[1];
  const body = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4));
  expect(body.error.request_id).toBe(requestId);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const principal = await t.gateway.core.apiKeys.authenticate(t.key);
  expect(log.lines().filter((line) => line.request_id === requestId)).toEqual([
    expect.objectContaining({
      msg: "request",
      method: "POST",
      path: "/v1/opendata/lookup_postal_code",
      status: 400,
      key_id: principal.keyId,
      provider: "opendata",
      operation: "lookup_postal_code",
    }),
  ]);
  expect(log.lines().filter((line) => line.msg === "request refused before it was read")).toEqual([]);
  expect(log.lines().filter((line) => line.status === 499)).toEqual([]);
});

it("logs a request whose client ended the connection before its body once, as 499", async () => {
  const socket = net.connect(Number(new URL(t.url).port), "127.0.0.1");
  socket.write(
    `POST /v1/opendata/lookup_postal_code HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.key}\r\n` +
      "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
  );
  await new Promise((resolve) => setTimeout(resolve, 100));
  socket.resume().end();
  await new Promise((resolve) => socket.on("close", resolve));
  await new Promise((resolve) => setTimeout(resolve, 200));
  const ended = log.lines().filter((line) => line.status === 499);
  expect(ended).toEqual([expect.objectContaining({ msg: "request", operation: "lookup_postal_code" })]);
  expect(log.lines().filter((line) => line.msg === "request refused before it was read")).toEqual([]);
});

it("closes a connection that sent nothing within the request timeout without an answer or a log line", async () => {
  // A browser's preconnect, a load balancer's TCP check: no request was made, so none is answered, logged or counted.
  const before = log.lines().length;
  const started = performance.now();
  const answer = await rawExchange(t.url, "");
  expect(answer).toBe("");
  expect(performance.now() - started).toBeGreaterThanOrEqual(900);
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(log.lines().slice(before)).toEqual([]);
  const metrics = await (await fetch(`${t.url}/metrics`)).text();
  expect(metrics).not.toMatch(/operation="unread"/);
});

it("gives the 400 of a body that stopped arriving the RateLimit headers of the request it counted", async () => {
  // One a minute: no token comes back while the test runs. A burst of 5.
  const created = await t.call("platform", "create_api_key", {
    scopes: ["*"],
    rate_limit: { per_minute: 1, burst: 5 },
  });
  const { key } = ((await created.json()) as { data: { key: string } }).data;
  const answer = await rawExchange(
    t.url,
    `POST /v1/opendata/lookup_postal_code HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
      "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
  );
  expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 400 Bad Request");
  const head = answer.slice(0, answer.indexOf("\r\n\r\n")).split("\r\n");
  expect(head).toContain('ratelimit-policy: "default";q=1;w=60');
  expect(head).toContain('ratelimit: "default";r=4;t=60');
  // It was counted: the next request has one token fewer.
  const next = await fetch(`${t.url}/v1/operations`, { headers: { authorization: `Bearer ${key}` } });
  expect(next.headers.get("ratelimit")).toMatch(/^"default";r=3;t=\d+$/);
});
