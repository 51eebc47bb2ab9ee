// A client that sends its headers and then its body a byte at a time, or not at all, holds no connection past
// GATEWAY_REQUEST_TIMEOUT_MS: the request is answered with the envelope's 400 and the connection closed.
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "./harness.ts";
import { rawExchange } from "./raw-http.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ env: { GATEWAY_REQUEST_TIMEOUT_MS: "1000" } });
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
