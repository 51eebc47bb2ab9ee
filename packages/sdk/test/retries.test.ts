// The client's retries against a real gateway: an answer lost after the operation ran is retried with the same
// Idempotency-Key and replayed (the operation ran once), 429 waits exactly Retry-After, 400 and a reused key's 409
// are never retried, the cap holds, and an AbortSignal stops both the wait and the request in flight. The 409 of a
// key still in progress is in slow-or-unreached-provider.test.ts.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { freePort, startTestGateway, type TestGateway } from "../../gateway/test/harness.ts";
import {
  ConflictError,
  GatewayClient,
  GatewayConnectionError,
  InvalidRequestError,
  RateLimitedError,
} from "../src/index.ts";
import { type FaultyProxy, startFaultyProxy } from "./support/faulty-proxy.ts";
import { recordingFetch, recordingSleep } from "./support/recording-fetch.ts";

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The gateway's clock, moved by the client's (recorded) waits: a Retry-After passes without real time passing. */
class SteppedClock {
  current = Date.now();
  now = () => this.current;
}

let gateway: TestGateway;
let proxy: FaultyProxy;
const clock = new SteppedClock();

beforeAll(async () => {
  gateway = await startTestGateway({ clock });
  proxy = await startFaultyProxy(gateway.url);
});
afterEach(() => proxy.script());
afterAll(async () => {
  await proxy?.close();
  await gateway?.close();
});

function client(options: Partial<ConstructorParameters<typeof GatewayClient>[0]> = {}) {
  const recording = recordingFetch();
  const schedule = recordingSleep();
  const instance = new GatewayClient({
    apiKey: gateway.key,
    baseUrl: proxy.url,
    fetch: recording.fetch,
    sleep: schedule.sleep,
    random: () => 0.5,
    ...options,
  });
  return { client: instance, attempts: recording.attempts, waits: schedule.waits };
}

async function keysNamed(name: string): Promise<number> {
  const { client: direct } = client({ baseUrl: gateway.url });
  const { data } = await direct.platform.listApiKeys();
  return data.api_keys.filter((key) => key.name === name).length;
}

describe("a state-changing call whose answer was lost", () => {
  it("is retried with the same generated Idempotency-Key; the gateway replays it and the key is created once", async () => {
    const { client: sdk, attempts, waits } = client();
    proxy.script("lose-answer");
    const { data, meta } = await sdk.platform.createApiKey({ name: "lost-answer", scopes: ["platform"] });
    expect(data.key).toMatch(/^gwk_[0-9A-Za-z]{32}$/);
    expect(meta.source).toBe("platform");
    expect(attempts).toHaveLength(2);
    const [first, second] = attempts;
    expect(first?.headers["idempotency-key"]).toMatch(uuid);
    expect(second?.headers["idempotency-key"]).toBe(first?.headers["idempotency-key"]);
    expect(second?.body).toBe(first?.body);
    expect(first?.status).toBeUndefined();
    expect(second?.status).toBe(200);
    expect(second?.responseHeaders["idempotent-replayed"]).toBe("true");
    expect(waits).toEqual([250]); // full jitter: 0.5 × min(8 s, 0.5 s × 2⁰)
    expect(await keysNamed("lost-answer")).toBe(1);
  });

  it("gets a new key on every call, and the caller's own key when given", async () => {
    const { client: sdk, attempts } = client();
    await sdk.platform.createApiKey({ name: "fresh-1", scopes: ["platform"] });
    await sdk.platform.createApiKey({ name: "fresh-2", scopes: ["platform"] });
    await sdk.platform.createApiKey({ name: "mine", scopes: ["platform"] }, { idempotencyKey: "order-4711" });
    const keys = attempts.map((a) => a.headers["idempotency-key"]);
    expect(keys[0]).toMatch(uuid);
    expect(keys[1]).toMatch(uuid);
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys[2]).toBe("order-4711");
  });

  it("stops after maxRetries retries, each with the same key, and throws the connection error", async () => {
    const { client: sdk, attempts, waits } = client();
    proxy.script("lose-answer", "lose-answer", "lose-answer", "lose-answer", "lose-answer");
    const error = await sdk.platform.createApiKey({ name: "capped", scopes: ["platform"] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayConnectionError);
    expect(error).toMatchObject({ code: "connection_error", status: 0, retryable: true, timedOut: false });
    expect(attempts).toHaveLength(4); // the first attempt and 3 retries (the default)
    expect(new Set(attempts.map((a) => a.headers["idempotency-key"])).size).toBe(1);
    // The generated key, so that the caller can send the same request again without running it twice.
    expect(error).toMatchObject({ idempotencyKey: attempts[0]?.headers["idempotency-key"], replayed: false });
    expect(waits).toEqual([250, 500, 1000]);
    expect(await keysNamed("capped")).toBe(1);
  });

  it("honours a lower maxRetries from the client and from the call", async () => {
    const { client: sdk, attempts } = client({ maxRetries: 1 });
    proxy.script("lose-answer", "lose-answer", "lose-answer");
    await expect(sdk.platform.listApiKeys()).rejects.toBeInstanceOf(GatewayConnectionError);
    expect(attempts).toHaveLength(2);
    await expect(sdk.platform.listApiKeys({}, { maxRetries: 0 })).rejects.toBeInstanceOf(GatewayConnectionError);
    expect(attempts).toHaveLength(3);
  });

  it("names the reason a connection failed under fetch's own message", async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const sdk = new GatewayClient({ apiKey: "gwk_unused", baseUrl: closed, maxRetries: 0 });
    const error = await sdk.platform.listApiKeys().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayConnectionError);
    expect((error as Error).message).toBe(
      `POST ${closed}/v1/platform/list_api_keys failed: fetch failed (ECONNREFUSED)`,
    );
  });
});

describe("no retry", () => {
  it("on 400 invalid_request", async () => {
    const { client: sdk, attempts } = client({ baseUrl: gateway.url });
    const error = await sdk.platform.createApiKey({ scopes: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({ code: "invalid_request", status: 400, retryable: false });
    expect((error as InvalidRequestError).details).toEqual([{ path: "/scopes", message: expect.any(String) }]);
    expect((error as InvalidRequestError).requestId).toMatch(/^req_/);
    expect(attempts).toHaveLength(1);
  });

  it("on 409 conflict (an Idempotency-Key reused for another request)", async () => {
    const { client: sdk, attempts } = client({ baseUrl: gateway.url });
    await sdk.platform.createApiKey({ name: "first", scopes: ["platform"] }, { idempotencyKey: "reused-key" });
    const error = await sdk.platform
      .createApiKey({ name: "second", scopes: ["platform"] }, { idempotencyKey: "reused-key" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({ code: "conflict", status: 409, details: { reason: "idempotency_key_reused" } });
    expect(attempts).toHaveLength(2);
  });

  it("of a POST that neither is read-only nor carries a key (an operation this SDK does not know)", async () => {
    const { client: sdk, attempts } = client();
    proxy.script("lose-answer", "lose-answer");
    await expect(sdk.call("platform", "operation_from_the_future", {})).rejects.toBeInstanceOf(GatewayConnectionError);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]?.headers["idempotency-key"]).toBeUndefined();
  });
});

describe("429 rate_limited", () => {
  it("waits exactly Retry-After, then the same request succeeds", async () => {
    const { client: admin } = client({ baseUrl: gateway.url });
    const { data } = await admin.platform.createApiKey({
      name: "slow",
      scopes: ["platform"],
      rate_limit: { per_minute: 30, burst: 1 },
    });
    const { fetch, attempts } = recordingFetch();
    const waits: number[] = [];
    const sdk = new GatewayClient({
      apiKey: data.key,
      baseUrl: gateway.url,
      fetch,
      async sleep(ms) {
        waits.push(ms);
        clock.current += ms; // the gateway's limiter sees the wait
      },
    });
    await sdk.platform.listApiKeys();
    const { data: listed } = await sdk.platform.listApiKeys();
    expect(listed.api_keys.length).toBeGreaterThan(0);
    expect(attempts.map((a) => a.status)).toEqual([200, 429, 200]);
    expect(attempts[1]?.responseHeaders["retry-after"]).toBe("2");
    expect(waits).toEqual([2000]);
  });

  it("throws RateLimitedError with retryAfterSeconds once the retries are used up", async () => {
    const { client: admin } = client({ baseUrl: gateway.url });
    const { data } = await admin.platform.createApiKey({
      name: "slower",
      scopes: ["platform"],
      rate_limit: { per_minute: 30, burst: 1 },
    });
    const { sleep, waits } = recordingSleep();
    const sdk = new GatewayClient({ apiKey: data.key, baseUrl: gateway.url, sleep, maxRetries: 2 });
    await sdk.platform.listApiKeys();
    const error = await sdk.platform.listApiKeys().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ code: "rate_limited", status: 429, retryable: true, retryAfterSeconds: 2 });
    expect(waits).toEqual([2000, 2000]);
  });
});

describe("abort", () => {
  it("during the wait before a retry rejects with the signal's reason and sends nothing more", async () => {
    const controller = new AbortController();
    const { client: sdk, attempts } = client({
      sleep: async (_ms, signal) => {
        controller.abort();
        if (signal?.aborted) throw signal.reason;
      },
    });
    proxy.script("lose-answer");
    const error = await sdk.platform.listApiKeys({}, { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "AbortError" });
    expect(attempts).toHaveLength(1);
  });

  it("in flight rejects at once with the signal's reason, without retrying", async () => {
    const controller = new AbortController();
    const { client: sdk, attempts } = client();
    proxy.script("hang");
    void proxy.hanging().then(() => controller.abort(new Error("user went away")));
    const error = await sdk.platform.listApiKeys({}, { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toEqual(new Error("user went away"));
    expect(attempts).toHaveLength(1);
  });

  it("before the call sends nothing", async () => {
    const { client: sdk, attempts } = client();
    const error = await sdk.platform.listApiKeys({}, { signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "AbortError" });
    expect(attempts).toHaveLength(0);
  });
});

describe("a per-attempt timeout", () => {
  it("fails the attempt as a retryable GatewayConnectionError; the retry succeeds", async () => {
    const { client: sdk, attempts } = client({ timeoutMs: 200 });
    proxy.script("hang");
    const { data } = await sdk.platform.createApiKey({ name: "after-timeout", scopes: ["platform"] });
    expect(data.api_key.name).toBe("after-timeout");
    expect(attempts).toHaveLength(2);
    expect(attempts[1]?.headers["idempotency-key"]).toBe(attempts[0]?.headers["idempotency-key"]);
  });

  it("ends in a timed-out GatewayConnectionError when every attempt hangs", async () => {
    const { client: sdk } = client({ timeoutMs: 100, maxRetries: 1 });
    proxy.script("hang", "hang");
    const error = await sdk.platform.listApiKeys().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayConnectionError);
    expect(error).toMatchObject({ timedOut: true, retryable: true });
  });
});
