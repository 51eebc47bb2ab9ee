// Per-key rate limits over real HTTP, in process on a fake clock: the RateLimit-Policy and RateLimit headers
// on every /v1 response, exact GCRA figures, and a 429 with Retry-After after which the same request succeeds.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../../test/harness.ts";
import { createTestkit } from "../idempotency/testkit.ts";

const kit = createTestkit();
const clock = { offset: 0, now: () => Date.now() + clock.offset };
let t: TestGateway;

beforeAll(async () => {
  t = await startTestGateway({ providers: kit.providers, clock });
});
afterAll(async () => t?.close());

async function send(key: string, path: string, init: RequestInit = {}) {
  const response = await fetch(`${t.url}${path}`, {
    method: "POST",
    ...init,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...init.headers },
  });
  return { response, json: (await response.json()) as Record<string, any> };
}

async function createKey(rateLimit?: { per_minute: number; burst: number }) {
  const { json } = await send(t.key, "/v1/platform/create_api_key", {
    body: JSON.stringify({ scopes: ["*"], ...(rateLimit && { rate_limit: rateLimit }) }),
  });
  return json.data.key as string;
}

describe("headers", () => {
  it("carries RateLimit-Policy and RateLimit on every answer to an authenticated /v1 request", async () => {
    const key = await createKey();
    const narrow = (await send(t.key, "/v1/platform/create_api_key", { body: '{"scopes":["platform"]}' })).json.data
      .key as string;
    const answers = [
      await send(key, "/v1/testkit/counter", { body: '{"value":"a"}' }),
      await send(key, "/v1/testkit/counter", { body: '{"value":"a"}', headers: { "idempotency-key": "rl-1" } }),
      await send(key, "/v1/testkit/counter", { body: '{"value":"a"}', headers: { "idempotency-key": "rl-1" } }),
      await send(key, "/v1/testkit/counter", { body: '{"value":"b"}', headers: { "idempotency-key": "rl-1" } }),
      await send(key, "/v1/testkit/counter", { body: '{"value":2}' }),
      await send(key, "/v1/testkit/nothing", { body: "{}" }),
      await send(key, "/v1/testkit/unavailable", { body: "{}" }),
      await send(key, "/v1/operations", { method: "GET" }),
      await send(narrow, "/v1/testkit/counter", { body: '{"value":"a"}' }),
    ];
    expect(answers.map((a) => a.response.status)).toEqual([200, 200, 200, 409, 400, 404, 502, 200, 403]);
    for (const { response } of answers) {
      expect(response.headers.get("ratelimit-policy")).toBe('"default";q=600;w=60');
      expect(response.headers.get("ratelimit")).toMatch(/^"default";r=\d+;t=\d+$/);
    }
  });

  it("gives the key's own policy when it has one", async () => {
    const key = await createKey({ per_minute: 120, burst: 10 });
    const { response } = await send(key, "/v1/operations", { method: "GET" });
    expect(response.headers.get("ratelimit-policy")).toBe('"default";q=120;w=60');
    expect(response.headers.get("ratelimit")).toBe('"default";r=9;t=1');
  });

  it("has none on a 401 (no key, so no policy)", async () => {
    const { response } = await send(`gwk_${"C".repeat(32)}`, "/v1/operations", { method: "GET" });
    expect(response.status).toBe(401);
    expect(response.headers.get("ratelimit-policy")).toBeNull();
    expect(response.headers.get("ratelimit")).toBeNull();
  });
});

describe("429", () => {
  it("refuses past the burst with Retry-After, and accepts the same request once it has passed", async () => {
    // 60 a minute: one request a second; a burst of 3.
    const key = await createKey({ per_minute: 60, burst: 3 });
    const request = () => send(key, "/v1/testkit/counter", { body: '{"value":"burst"}' });
    const seen = [];
    for (let i = 0; i < 3; i++) {
      const { response } = await request();
      seen.push([response.status, response.headers.get("ratelimit")]);
    }
    expect(seen).toEqual([
      [200, '"default";r=2;t=1'],
      [200, '"default";r=1;t=2'],
      [200, '"default";r=0;t=3'],
    ]);

    const limited = await request();
    expect(limited.response.status).toBe(429);
    expect(limited.response.headers.get("retry-after")).toBe("1");
    expect(limited.response.headers.get("ratelimit")).toBe('"default";r=0;t=1');
    expect(limited.response.headers.get("ratelimit-policy")).toBe('"default";q=60;w=60');
    expect(limited.json).toEqual({
      error: {
        code: "rate_limited",
        message: "This key may send 60 requests a minute (bursts of 3); retry in 1 s",
        request_id: limited.response.headers.get("x-request-id"),
        retryable: true,
        fix: expect.any(String),
      },
    });

    clock.offset += Number(limited.response.headers.get("retry-after")) * 1000;
    const after = await request();
    expect(after.response.status).toBe(200);
    expect(after.json.data.value).toBe("burst");
  });

  it("limits each key on its own", async () => {
    const a = await createKey({ per_minute: 1, burst: 1 });
    const b = await createKey({ per_minute: 1, burst: 1 });
    expect((await send(a, "/v1/operations", { method: "GET" })).response.status).toBe(200);
    expect((await send(a, "/v1/operations", { method: "GET" })).response.status).toBe(429);
    expect((await send(b, "/v1/operations", { method: "GET" })).response.status).toBe(200);
  });

  it("rounds Retry-After up to whole seconds", async () => {
    const key = await createKey({ per_minute: 1, burst: 1 });
    await send(key, "/v1/operations", { method: "GET" });
    clock.offset += 100;
    const limited = await send(key, "/v1/operations", { method: "GET" });
    expect(limited.response.headers.get("retry-after")).toBe("60");
    expect(limited.json.error.message).toBe("This key may send 1 request a minute (bursts of 1); retry in 60 s");
  });
});
