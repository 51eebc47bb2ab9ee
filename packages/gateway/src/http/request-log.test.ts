// The one log line per request: exactly its fields, the request id once (the line is valid JSON without duplicate
// keys), and neither the API key nor the request body in it.
import net from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../test/harness.ts";
import { captureLog } from "../../test/log-capture.ts";
import { armFault } from "../../test/sandbox-faults.ts";
import { loggedPath } from "./request-log.ts";

const log = captureLog();
let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ logger: { level: "info", stream: log.stream } });
});
afterAll(async () => t?.close());

const requestLines = (requestId: string) =>
  log.rawLines().filter((line) => line.includes(requestId) && line.includes('"msg":"request"'));

/** The line is written once the answer has gone out, so it may follow the answer by a moment. */
async function linesOf(requestId: string): Promise<string[]> {
  for (let tries = 0; tries < 100 && requestLines(requestId).length === 0; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return requestLines(requestId);
}

it("writes one line per answered request with exactly the operator's fields", async () => {
  const response = await t.call("opendata", "lookup_postal_code", { postal_code: "1000001" });
  expect(response.status).toBe(200);
  const requestId = response.headers.get("x-request-id")!;
  const [line, ...more] = await linesOf(requestId);
  expect(more).toEqual([]);
  expect(line!.split('"request_id"').length - 1).toBe(1);
  const entry = JSON.parse(line!) as Record<string, unknown>;
  const principal = await t.gateway.core.apiKeys.authenticate(t.key);
  expect(Object.keys(entry).sort()).toEqual(
    [
      "level",
      "time",
      "pid",
      "hostname",
      "request_id",
      "method",
      "path",
      "status",
      "latency_ms",
      "account",
      "key_id",
      "provider",
      "operation",
      "msg",
    ].sort(),
  );
  expect(entry).toMatchObject({
    level: 30,
    request_id: requestId,
    method: "POST",
    path: "/v1/opendata/lookup_postal_code",
    status: 200,
    account: "default",
    key_id: principal.keyId,
    provider: "opendata",
    operation: "lookup_postal_code",
    msg: "request",
  });
  expect(typeof entry.latency_ms).toBe("number");
  expect(line).not.toContain(t.key);
  expect(line).not.toContain("1000001");
});

it("logs refused requests too, without the key that was refused", async () => {
  const bogus = `gwk_${"0".repeat(32)}`;
  const response = await fetch(`${t.url}/v1/opendata/lookup_postal_code`, {
    method: "POST",
    headers: { authorization: `Bearer ${bogus}`, "content-type": "application/json" },
    body: "{}",
  });
  expect(response.status).toBe(401);
  const [line] = await linesOf(response.headers.get("x-request-id")!);
  expect(JSON.parse(line!)).toMatchObject({ status: 401, path: "/v1/opendata/lookup_postal_code" });
  expect(JSON.parse(line!)).not.toHaveProperty("key_id");
  expect(line).not.toContain(bogus);
});

it("logs the path without its query string", async () => {
  const response = await fetch(`${t.url}/v1/opendata/lookup_postal_code?token=query-secret&x=1`, {
    method: "POST",
    headers: { authorization: `Bearer ${t.key}`, "content-type": "application/json" },
    body: JSON.stringify({ postal_code: "1000001" }),
  });
  const [line] = await linesOf(response.headers.get("x-request-id")!);
  expect(JSON.parse(line!)).toMatchObject({ path: "/v1/opendata/lookup_postal_code" });
  expect(line).not.toContain("query-secret");
});

it("never logs a secret-shaped path segment, even of a request that misses the route meant for it", async () => {
  const token = "cst_Hq8VbN2xRt5LmY7pK3wZ9cD4fG6jS1aE";
  const cases: [string, string, string][] = [
    ["GET", `/connect/${token}/`, "/connect/cst_…/"],
    ["PUT", `/connect/${token}`, "/connect/cst_…"],
    ["GET", `//connect/${token}`, "//connect/cst_…"],
    ["GET", `/v1/gwk_${"a".repeat(32)}/x`, "/v1/gwk_…/x"],
    ["GET", "/v1/platform/whsec_abc_def/more", "/v1/platform/whsec_…/more"],
    // Percent-encoded, the secret is still seen; a fragment is never logged.
    ["GET", `/connect/%63st_${token.slice(4)}/`, "/connect/cst_…/"],
    ["GET", `/connect/cst%5F${token.slice(4)}/`, "/connect/cst_…/"],
  ];
  for (const [method, path, logged] of cases) {
    const response = await fetch(`${t.url}${path}`, { method });
    const [line] = await linesOf(response.headers.get("x-request-id")!);
    expect(JSON.parse(line!).path).toBe(logged);
  }
});

it("cuts a fragment, and whatever precedes an @ where the path begins with an authority", () => {
  expect(loggedPath(`/healthz#gwk_${"a".repeat(32)}`)).toBe("/healthz");
  expect(loggedPath("http://user:pass/word@127.0.0.1/healthz")).toBe("/healthz");
  expect(loggedPath("//user:password@127.0.0.1/healthz")).toBe("/healthz");
  expect(loggedPath("//connect/cst_abc")).toBe("//connect/cst_…");
  expect(loggedPath("/v1/a%ZZ_b")).toBe("/v1/a%ZZ_b");
});

it("logs an absolute-form request's path, never the password in its authority", async () => {
  const { port } = new URL(t.url);
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(Number(port), "127.0.0.1", () => {
      socket.write(
        `POST http://user:url-password@127.0.0.1:${port}/v1/opendata/lookup_postal_code HTTP/1.1\r\n` +
          `Host: 127.0.0.1:${port}\r\nAuthorization: Bearer ${t.key}\r\nContent-Type: application/json\r\n` +
          'Content-Length: 25\r\nConnection: close\r\n\r\n{"postal_code":"1000001"}',
      );
    });
    let text = "";
    socket.on("data", (chunk) => {
      text += chunk;
    });
    socket.on("end", () => resolve(text));
    socket.on("error", reject);
  });
  const requestId = /^x-request-id: (\S+)\r$/im.exec(answer)?.[1];
  const [line] = await linesOf(requestId!);
  expect(JSON.parse(line!).path).toBe("/v1/opendata/lookup_postal_code");
  expect(line).not.toContain("url-password");
});

it("logs a request the router refuses like any other when its client closes the connection before the answer: 499", async () => {
  // site_metadata waits 1.5 s for its upstream: the requests pipelined behind it are not answered before the close.
  await armFault(t.gateway.upstreamUrls.catalog, { delay_ms: 1500, count: 1, path_prefix: "/api/v1/site" });
  const before = log.lines().length;
  const { port, hostname } = new URL(t.url);
  const socket = net.connect(Number(port), hostname);
  socket.on("error", () => {});
  await new Promise((resolve) => socket.once("connect", resolve));
  const refused = [
    // Refused by the router before any hook: a malformed percent-encoding, a path segment over 100 characters.
    ["POST", "/v1/%zz/op"],
    ["POST", `/v1/opendata/${"a".repeat(200)}`],
    // Refused by the not-found handler, after the hooks: no such route, a method the route does not take.
    ["POST", "/no-such-route"],
    ["GET", "/v1/catalog/search_products"],
  ];
  socket.write(
    `POST /v1/catalog/site_metadata HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.key}\r\n` +
      "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}" +
      refused.map(([method, path]) => `${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n`).join(""),
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  socket.destroy();
  const logged = () =>
    log
      .lines()
      .slice(before)
      .filter((line) => line.msg === "request")
      .map((line) => [line.method, line.path, line.status]);
  await expect.poll(logged).toHaveLength(1 + refused.length);
  expect(logged()).toEqual([
    ["POST", "/v1/catalog/site_metadata", 499],
    ...refused.map(([method, path]) => [method, path, 499]),
  ]);
});
