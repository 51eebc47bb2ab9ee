// The demo's per-visitor limit with Redis: two gateway nodes on one store and one Redis count a visitor together, so
// the burst of 5 is the visitor's whole burst however a load balancer spreads the calls.
import { afterAll, beforeAll, expect, it } from "vitest";
import { randomBase62 } from "../../src/core/ids.ts";
import type { TestGateway } from "../harness.ts";
import { startConsoleGateway } from "./console-client.ts";

const redisUrl = process.env.GATEWAY_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
let a: TestGateway;
let b: TestGateway;
beforeAll(async () => {
  const env = { GATEWAY_REDIS_URL: redisUrl, GATEWAY_REDIS_KEY_PREFIX: `demo-${randomBase62(8)}:` };
  a = await startConsoleGateway({ env });
  b = await startConsoleGateway({ env, shareStoreWith: a });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

const run = (t: TestGateway, text: string) =>
  fetch(`${t.url}/demo/api/run/echo/say`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ text }),
  });

it("counts one visitor's calls across the nodes", async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) statuses.push((await run(i % 2 === 0 ? a : b, `n${i}`)).status);
  expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  const limited = await run(a, "again");
  expect(limited.status).toBe(429);
  expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
});
