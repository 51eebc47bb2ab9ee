// What a gateway does not send but something between it and the client may: a long Retry-After, a proxy's HTML
// error page, a 200 that is not JSON. A scripted node:http server plays that part. And the constructor's checks.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GatewayClient, GatewayError, RateLimitedError } from "../src/index.ts";
import { recordingSleep } from "./support/recording-fetch.ts";

interface Scripted {
  status: number;
  headers?: Record<string, string>;
  body: string;
}

let script: Scripted[] = [];
let received = 0;
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    received++;
    req.resume();
    const next = script.shift() ?? { status: 200, body: '{"data":{},"meta":{"source":"x","fetched_at":"t"}}' };
    res.writeHead(next.status, { "content-type": "application/json", ...next.headers }).end(next.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
beforeEach(() => {
  script = [];
  received = 0;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const rateLimited = (retryAfter: string): Scripted => ({
  status: 429,
  headers: { "retry-after": retryAfter },
  body: JSON.stringify({ error: { code: "rate_limited", message: "slow down", request_id: "req_1", retryable: true } }),
});

function sdk() {
  const { sleep, waits } = recordingSleep();
  return { client: new GatewayClient({ apiKey: "gwk_test", baseUrl, sleep }), waits };
}

describe("answers from something other than the gateway", () => {
  it("a Retry-After over a minute is not waited for: RateLimitedError at once, with retryAfterSeconds", async () => {
    const { client, waits } = sdk();
    script = [rateLimited("120")];
    const error = await client.catalog.siteMetadata().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ retryAfterSeconds: 120, requestId: "req_1" });
    expect(waits).toEqual([]);
    expect(received).toBe(1);
  });

  it("a Retry-After given as an HTTP date is followed", async () => {
    const { client, waits } = sdk();
    script = [rateLimited(new Date(Date.now() + 3_000).toUTCString())];
    await client.catalog.siteMetadata();
    expect(received).toBe(2);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(0);
    expect(waits[0]).toBeLessThanOrEqual(4_000);
  });

  it("a proxy's 503 page without an envelope is retryable and retried", async () => {
    const { client } = sdk();
    script = [{ status: 503, headers: { "content-type": "text/html" }, body: "<h1>Service Unavailable</h1>" }];
    const { meta } = await client.catalog.siteMetadata();
    expect(meta.source).toBe("x");
    expect(received).toBe(2);
  });

  it("a 200 that is not a JSON object is an invalid_response, not retried", async () => {
    const { client } = sdk();
    script = [{ status: 200, headers: { "content-type": "text/html" }, body: "<html>captive portal</html>" }];
    const error = await client.catalog.siteMetadata().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: "invalid_response", status: 200, retryable: false });
    expect(received).toBe(1);
  });
});

describe("new GatewayClient", () => {
  it("refuses a missing key, a base URL that is not http(s), and bad retry or timeout numbers", () => {
    expect(() => new GatewayClient({ apiKey: "", baseUrl })).toThrow(TypeError);
    expect(() => new GatewayClient({ apiKey: "k", baseUrl: "gateway.example.com" })).toThrow(TypeError);
    expect(() => new GatewayClient({ apiKey: "k", baseUrl, maxRetries: -1 })).toThrow(RangeError);
    expect(() => new GatewayClient({ apiKey: "k", baseUrl, maxRetries: 1.5 })).toThrow(RangeError);
    expect(() => new GatewayClient({ apiKey: "k", baseUrl, timeoutMs: 0 })).toThrow(RangeError);
  });

  it("exposes one frozen group per provider, enumerable, with a method per operation", () => {
    const client = new GatewayClient({ apiKey: "k", baseUrl });
    expect(Object.keys(client)).toEqual(expect.arrayContaining(["platform", "catalog", "homegoods", "opendata"]));
    expect(Object.isFrozen(client.catalog)).toBe(true);
    expect(typeof client.homegoods.todayDeals).toBe("function");
  });
});
