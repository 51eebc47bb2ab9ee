// A 502 from a provider's answer (an HTTP error, its own access refused, a 2xx that is not JSON) says in the log what
// the provider did, under the request id: the client sees it in the answer, the operator only in the log.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "./harness.ts";
import { captureLog } from "./log-capture.ts";

let t: TestGateway;
let upstream: http.Server;
let answer = { status: 200, body: "" };
const log = captureLog();

beforeAll(async () => {
  upstream = http.createServer((_request, response) => {
    response.writeHead(answer.status, { "content-type": "application/json" });
    response.end(answer.body);
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  t = await startTestGateway({
    env: { GATEWAY_UPSTREAM_OPENDATA_URL: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` },
    logger: { level: "info", stream: log.stream },
  });
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => upstream?.close(resolve));
});

/** The lines other than the request line logged under the request id of one call answered `status`. */
async function loggedFor(status: number): Promise<Record<string, unknown>[]> {
  const response = await t.call("opendata", "list_holidays", { year: 2026 });
  expect(response.status).toBe(status);
  const requestId = response.headers.get("x-request-id");
  return log
    .lines()
    .filter((line) => line.request_id === requestId && line.msg !== "request")
    .map(({ level, msg, provider }) => ({ level, msg, provider }));
}

it("logs a provider's error answer that is a 502 at warn, with its HTTP status", async () => {
  answer = { status: 503, body: "{}" };
  expect(await loggedFor(502)).toEqual([
    { level: 40, msg: "provider failure: The opendata provider failed (HTTP 503)", provider: "opendata" },
  ]);
  answer = { status: 401, body: "{}" };
  expect(await loggedFor(502)).toEqual([
    {
      level: 40,
      msg: "provider failure: The opendata provider refused the gateway's own access (HTTP 401)",
      provider: "opendata",
    },
  ]);
  answer = { status: 200, body: "<html>maintenance</html>" };
  expect(await loggedFor(502)).toEqual([
    {
      level: 40,
      msg: "provider failure: The opendata provider answered HTTP 200 without a JSON body",
      provider: "opendata",
    },
  ]);
});

it("logs nothing more for a provider's answer that is the client's to mend", async () => {
  answer = { status: 404, body: "{}" };
  expect(await loggedFor(404)).toEqual([]);
});
