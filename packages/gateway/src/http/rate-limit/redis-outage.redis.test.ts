// Redis stopped in the middle of a run: the gateway keeps answering (fails open, counted in /metrics), and once Redis
// is back the limits apply again. The Redis here is the test's own server, killed and restarted.
import { afterAll, beforeAll, expect, it } from "vitest";
import { type RedisServer, startRedisServer } from "../../../test/cluster.ts";
import { startTestGateway, type TestGateway } from "../../../test/harness.ts";
import { randomBase62 } from "../../core/ids.ts";

let redis: RedisServer;
let t: TestGateway;
let key: string;

beforeAll(async () => {
  redis = await startRedisServer();
  t = await startTestGateway({
    env: {
      GATEWAY_REDIS_URL: redis.url,
      GATEWAY_REDIS_KEY_PREFIX: `outage-${randomBase62(8)}:`,
      // A stopped Redis refuses connections at once; the longer timeout only keeps a loaded test machine from
      // failing open while Redis is up.
      GATEWAY_REDIS_COMMAND_TIMEOUT_MS: "2000",
    },
  });
  const created = await t.call("platform", "create_api_key", {
    scopes: ["*"],
    rate_limit: { per_minute: 1, burst: 3 },
  });
  key = ((await created.json()) as { data: { key: string } }).data.key;
});
afterAll(async () => {
  await t?.close();
  await redis?.stop();
});

const request = () =>
  fetch(`${t.url}/v1/platform/list_api_keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: "{}",
  });

async function failOpenCount(): Promise<number> {
  const text = await (await fetch(`${t.url}/metrics`)).text();
  return Number(/^gateway_rate_limit_fail_open_total (\d+)/m.exec(text)?.[1] ?? Number.NaN);
}

/** Sends until a 429 and answers the statuses seen. */
async function untilLimited(): Promise<number[]> {
  const statuses: number[] = [];
  while (statuses.at(-1) !== 429 && statuses.length < 10) statuses.push((await request()).status);
  return statuses;
}

/** Sends until an answer carries a RateLimit header: the first request Redis counted. */
async function firstCounted(): Promise<Response | undefined> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const response = await request();
    expect(response.status).toBe(200);
    if (response.headers.get("ratelimit")) return response;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

it("limits through Redis, fails open while Redis is down, and limits again once it is back", async () => {
  expect(t.gateway.guards.limiter.kind).toBe("redis");
  expect((await firstCounted())?.headers.get("ratelimit")).toBe('"default";r=2;t=60');
  expect(await untilLimited()).toEqual([200, 200, 429]);

  await redis.kill();
  const before = await failOpenCount();
  for (let i = 0; i < 5; i++) {
    const response = await request();
    expect(response.status).toBe(200);
    expect(response.headers.get("ratelimit-policy")).toBe('"default";q=1;w=60');
    expect(response.headers.get("ratelimit")).toBeNull();
  }
  expect(await failOpenCount()).toBe(before + 5);

  // Started again (empty): the client reconnects on its own and the limits apply again.
  await redis.restart();
  expect((await firstCounted())?.headers.get("ratelimit")).toBe('"default";r=2;t=60');
  expect(await untilLimited()).toEqual([200, 200, 429]);
});
