// What a gateway does not send but something between it and the client may: a long Retry-After, a proxy's HTML
// error page, a 200 that is not JSON. A scripted node:http server plays that part. And the checks made before
// anything is sent: the constructor's, and header values (keys, connection ids) that could never be sent or accepted.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GatewayClient, GatewayError, RateLimitedError } from "../src/index.ts";
import { recordingFetch, recordingSleep } from "./support/recording-fetch.ts";

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

  it("so is a 200 whose JSON object has no `data`: not the gateway's envelope", async () => {
    const { client } = sdk();
    script = [{ status: 200, body: '{"status":"ok"}' }];
    const error = await client.catalog.siteMetadata().catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: "invalid_response",
      status: 200,
      retryable: false,
      message: "The gateway answered HTTP 200 with a JSON object without `data`",
    });
  });
});

describe("an error page that echoes the request's headers", () => {
  it("never carries the API key into the error's message, fields or inspection", async () => {
    const apiKey = `gwk_${"S3cr3t".repeat(6)}ab`;
    const client = new GatewayClient({ apiKey, baseUrl, maxRetries: 0 });
    const echoed = `Authorization: Bearer ${apiKey}`;
    script = [
      { status: 401, headers: { "content-type": "text/plain" }, body: `Denied. ${echoed}` },
      {
        status: 400,
        body: JSON.stringify({
          error: {
            code: "invalid_request",
            message: `Bad ${echoed}`,
            request_id: "req_2",
            retryable: false,
            fix: echoed,
          },
        }),
      },
    ];
    for (const expected of [
      {
        code: "unauthorized",
        message: "The gateway answered HTTP 401 without an error envelope: Denied. Authorization: Bearer [redacted]",
      },
      {
        code: "invalid_request",
        message: "Bad Authorization: Bearer [redacted]",
        fix: "Authorization: Bearer [redacted]",
      },
    ]) {
      const error = await client.catalog.siteMetadata().catch((e: unknown) => e);
      expect(error).toMatchObject(expected);
      expect(`${inspect(error, { showHidden: true })} ${JSON.stringify(error)} ${String(error)}`).not.toContain(apiKey);
    }
  });
});

describe("a redirect", () => {
  it("is not followed (it would turn the POST into a GET or drop the key) but thrown, naming where it points", async () => {
    const { client, waits } = sdk();
    for (const status of [301, 308]) {
      script = [{ status, headers: { location: "https://gateway.example.com/v1/catalog/site_metadata" }, body: "" }];
      received = 0;
      const error = await client.catalog.siteMetadata().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GatewayError);
      expect(error).toMatchObject({
        code: `http_${status}`,
        status,
        retryable: false,
        message:
          "The gateway answered with a redirect to https://gateway.example.com/v1/catalog/site_metadata, which the SDK does not follow",
      });
      expect((error as GatewayError).fix).toMatch(/^Set baseUrl to the gateway's own URL/);
      expect(received).toBe(1);
    }
    expect(waits).toEqual([]);
  });
});

describe("header values that cannot be sent: a TypeError at once, nothing sent, no retry", () => {
  const unsendable = ["キー", "clé", "", "   ", "line\nbreak", "tab\there", "x".repeat(256)];

  it("an idempotencyKey that is not 1 to 255 printable ASCII characters the gateway reads as they are", async () => {
    const { client, waits } = sdk();
    for (const idempotencyKey of [...unsendable, '"abc', '"quoted"', " padded", "padded "]) {
      const error = await client.platform
        .createApiKey({ name: "k", scopes: ["catalog"] }, { idempotencyKey })
        .catch((e: unknown) => e);
      expect(error, JSON.stringify(idempotencyKey)).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(/^idempotencyKey must (be|not begin)/);
    }
    expect(received).toBe(0);
    expect(waits).toEqual([]);
  });

  it("a connectionId of the call or of the client", async () => {
    const { client, waits } = sdk();
    for (const connectionId of ["conn_キ", "conn_\r\n", ""]) {
      await expect(client.shopping.getCart({}, { connectionId })).rejects.toThrow(/^connectionId must be/);
      expect(() => new GatewayClient({ apiKey: "gwk_test", baseUrl, connectionId })).toThrow(TypeError);
    }
    expect(received).toBe(0);
    expect(waits).toEqual([]);
  });

  it("an apiKey or userAgent, refused by the constructor", () => {
    expect(() => new GatewayClient({ apiKey: "gwk_キー", baseUrl })).toThrow(/^apiKey must be/);
    expect(() => new GatewayClient({ apiKey: "gwk_test", baseUrl, userAgent: "アプリ/1.0" })).toThrow(/^userAgent/);
  });

  it("while 255 printable ASCII characters are sent as they are", async () => {
    const { fetch, attempts } = recordingFetch();
    const client = new GatewayClient({ apiKey: "gwk_test", baseUrl, fetch });
    const idempotencyKey = `a b!"#$%&'()*+,-./09:;<=>?@AZ[\\]^_\`az{|}~`.padEnd(255, "k");
    await client.platform.createApiKey({ name: "k", scopes: ["catalog"] }, { idempotencyKey });
    expect(attempts[0]?.headers["idempotency-key"]).toBe(idempotencyKey);
    expect(received).toBe(1);
  });
});

describe("calling again after a retryable error", () => {
  it("passes error.idempotencyKey back as it is, null for a call that sent none", async () => {
    const { client } = sdk();
    script = [rateLimited("120")];
    const error = (await client.catalog.siteMetadata(undefined, { maxRetries: 0 }).catch((e: unknown) => e)) as
      | GatewayError
      | undefined;
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error?.idempotencyKey).toBeNull();
    const again = await client.catalog.siteMetadata(undefined, { idempotencyKey: error?.idempotencyKey });
    expect(again.meta.source).toBe("x");
    expect(received).toBe(2);
  });
});

describe("new GatewayClient", () => {
  it("refuses a missing key, a base URL that is not http(s), and bad retry or timeout numbers", () => {
    expect(() => new GatewayClient({ apiKey: "", baseUrl })).toThrow(TypeError);
    expect(() => new GatewayClient({ apiKey: "k", baseUrl: "gateway.example.com" })).toThrow(TypeError);
    expect(() => new GatewayClient({ apiKey: "k", baseUrl, maxRetries: -1 })).toThrow(RangeError);
    expect(() => new GatewayClient({ apiKey: "k", baseUrl, maxRetries: 1.5 })).toThrow(RangeError);
    expect(() => new GatewayClient({ apiKey: "k", baseUrl, timeoutMs: 0 })).toThrow(RangeError);
    // Past the longest timer (2^31 - 1 ms) a timeout would fire at once: refused rather than timing out every call.
    expect(() => new GatewayClient({ apiKey: "k", baseUrl, timeoutMs: 2 ** 31 })).toThrow(RangeError);
    expect(() => new GatewayClient({ apiKey: "k", baseUrl, timeoutMs: 2 ** 31 - 1 })).not.toThrow();
  });

  it("refuses a base URL fetch could not use under a path, without repeating it (it may hold a password)", () => {
    for (const unusable of [
      "https://user:s3cret@gateway.example.com",
      "http://exa mple.com",
      "https://gateway.example.com/?x=1",
      "https://gateway.example.com?",
      "https://gateway.example.com/#top",
    ]) {
      const error = (() => {
        try {
          new GatewayClient({ apiKey: "k", baseUrl: unusable });
        } catch (caught) {
          return caught as Error;
        }
        return undefined;
      })();
      expect(error, unusable).toBeInstanceOf(TypeError);
      expect(error?.message).not.toContain("s3cret");
    }
    expect(() => new GatewayClient({ apiKey: "k", baseUrl: "https://gateway.example.com/gw/" })).not.toThrow();
  });

  it("exposes one frozen group per provider, enumerable, with a method per operation", () => {
    const client = new GatewayClient({ apiKey: "k", baseUrl });
    expect(Object.keys(client)).toEqual(expect.arrayContaining(["platform", "catalog", "homegoods", "opendata"]));
    expect(Object.isFrozen(client.catalog)).toBe(true);
    expect(typeof client.homegoods.todayDeals).toBe("function");
  });
});
