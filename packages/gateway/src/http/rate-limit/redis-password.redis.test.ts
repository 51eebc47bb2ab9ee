// A Redis that refuses the gateway's password (rotated, mistyped): the gateway says Redis is unavailable, and its log
// never holds the password, though the client library puts the failed AUTH command, password included, on its error.
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

it("logs that Redis is unavailable, with the reason and without the password it sent", async () => {
  redis = await startRedisServer({ password: "TheRightRedisPassword" });
  const log = captureLog();
  const url = new URL(redis.url);
  url.password = "AMistypedRedisPassword";
  t = await startTestGateway({
    logger: { level: "info", stream: log.stream },
    env: { GATEWAY_REDIS_URL: url.toString(), GATEWAY_REDIS_KEY_PREFIX: `pw-${randomBase62(8)}:` },
  });
  expect((await t.call("platform", "list_api_keys")).status).toBe(200);
  const down = log.lines().find((line) => line.msg.startsWith("Redis is unavailable"));
  expect(down?.err?.message).toMatch(/WRONGPASS|invalid username-password/);
  expect(log.text()).not.toContain("AMistypedRedisPassword");
});
