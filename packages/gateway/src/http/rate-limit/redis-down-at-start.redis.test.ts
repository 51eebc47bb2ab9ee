// A gateway that starts while its Redis is down: it starts anyway, says so in its log (the line is written once the
// logger exists, though Redis was found down before), lets requests through and counts them, and once Redis comes
// up logs the recovery and enforces limits.
import { afterAll, expect, it } from "vitest";
import { type RedisServer, startRedisServer } from "../../../test/cluster.ts";
import { startTestGateway, type TestGateway } from "../../../test/harness.ts";
import { captureLog } from "../../../test/log-capture.ts";
import { randomBase62 } from "../../core/ids.ts";

let redis: RedisServer | undefined;
let t: TestGateway | undefined;
afterAll(async () => {
  await t?.close();
  await redis?.stop();
});

const log = captureLog();

async function eventually<T>(probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it("starts, warns, fails open and counts it, then logs the recovery and limits once Redis is up", async () => {
  // A Redis started and stopped: its port is one where nothing listens now, and where it will come back.
  redis = await startRedisServer();
  await redis.kill();
  t = await startTestGateway({
    logger: { level: "info", stream: log.stream },
    env: { GATEWAY_REDIS_URL: redis.url, GATEWAY_REDIS_KEY_PREFIX: `down-${randomBase62(8)}:` },
  });
  const down = log.lines().filter((line) => line.msg.startsWith("Redis is unavailable"));
  expect(down).toHaveLength(1);
  expect(down[0]).toMatchObject({
    level: 40,
    msg: "Redis is unavailable: rate limits are not enforced until it answers again",
    err: { message: expect.stringContaining("ECONNREFUSED") },
  });

  const created = await t.call("platform", "create_api_key", {
    scopes: ["*"],
    rate_limit: { per_minute: 1, burst: 2 },
  });
  const { key } = ((await created.json()) as { data: { key: string } }).data;
  const request = () =>
    fetch(`${t?.url}/v1/platform/list_api_keys`, { method: "POST", headers: { authorization: `Bearer ${key}` } });
  const failOpen = async () =>
    Number(/^gateway_rate_limit_fail_open_total (\d+)/m.exec(await (await fetch(`${t?.url}/metrics`)).text())?.[1]);
  const before = await failOpen();
  for (let i = 0; i < 4; i++) expect((await request()).status).toBe(200);
  expect(await failOpen()).toBe(before + 4);

  await redis.restart();
  await eventually(() => (log.lines().some((line) => line.msg.startsWith("Redis answers again")) ? true : undefined));
  expect(
    log
      .lines()
      .filter((line) => line.msg.startsWith("Redis"))
      .map((line) => [line.level, line.msg]),
  ).toEqual([
    [40, "Redis is unavailable: rate limits are not enforced until it answers again"],
    [30, "Redis answers again: rate limits are enforced"],
  ]);
  const statuses: number[] = [];
  while (statuses.at(-1) !== 429 && statuses.length < 10) statuses.push((await request()).status);
  expect(statuses).toEqual([200, 200, 429]);
});
