// The logs of a whole connect flow and of calls with the connection name no secret: not the connect token (its
// path is logged as the route pattern), not the OAuth code or state, not the provider's tokens.
import { afterAll, beforeAll, expect, it } from "vitest";
import { FormBrowser } from "../../src/cli/form-browser.ts";
import { captureLog } from "../log-capture.ts";
import { armFault } from "../sandbox-faults.ts";
import { eventually } from "../webhooks/fake-clock.ts";
import { connect, rawConnection, type ShoppingSetup, shopping, startShopping } from "./setup.ts";

const log = captureLog();
let s: ShoppingSetup;
beforeAll(async () => {
  s = await startShopping({ gateway: { logger: { level: "trace", stream: log.stream } } });
});
afterAll(async () => s?.close());

it("keeps connect tokens, codes, state and provider tokens out of the logs", async () => {
  const browser = new FormBrowser();
  const { connection, session } = await connect(s.t, "logged", { browser });
  s.clock.advance(16 * 60_000); // a refresh, too
  expect((await shopping(s.t, "get_cart", connection.id)).status).toBe(200);
  const row = await rawConnection(s.t, connection.id);
  const callback = new URL(browser.visited.at(-1)!);
  const secrets = [
    session.token,
    callback.searchParams.get("code")!,
    callback.searchParams.get("state")!,
    s.t.gateway.core.secretBox.open(row.access_token!),
    s.t.gateway.core.secretBox.open(row.refresh_token!),
  ];
  const text = log.text();
  expect(text).toContain('"path":"/connect/:token"');
  expect(text).toContain('"path":"/connect/callback"');
  for (const secret of secrets) expect(text).not.toContain(secret);
});

it("says in the log why the shop's authorization server failed a connect flow or a refresh, without its secrets", async () => {
  const fault = (status: number) => armFault(s.sandboxUrl, { status, path_prefix: "/oauth/token", count: 1 });
  const { connection } = await connect(s.t, "failing_shop");
  s.clock.advance(16 * 60_000);
  await fault(503);
  expect((await shopping(s.t, "get_cart", connection.id)).status).toBe(502);
  const refresh = log.lines().find((line) => line.msg.startsWith("provider failure:"));
  expect(refresh).toMatchObject({
    level: 40,
    msg: "provider failure: The shopping provider's authorization server did not refresh the access token",
    provider: "shopping",
    err: { message: expect.stringContaining("the server answered HTTP 503") },
  });

  const { runConnectFlow } = await import("../../src/cli/connect-flow.ts");
  const { createSession } = await import("./setup.ts");
  const session = await createSession(s.t, "failing_shop_connect");
  await fault(500);
  const flow = await runConnectFlow({ connectUrl: session.connect_url, username: "demo", password: "demo" });
  expect(flow.page.status).toBe(502);
  const callback = log.lines().find((line) => line.msg === "the provider's authorization server failed");
  expect(callback).toMatchObject({
    level: 40,
    provider: "shopping",
    err: { message: expect.stringContaining("the server answered HTTP 500") },
  });
  expect(log.text()).not.toContain("sandbox-client-secret");
});

it("says in the log that a refresh failed after the call waiting for it had given up", async () => {
  const own = captureLog();
  const slow = await startShopping({
    gateway: { logger: { level: "info", stream: own.stream }, env: { GATEWAY_UPSTREAM_TIMEOUT_MS: "500" } },
  });
  try {
    const { connection } = await connect(slow.t, "given_up");
    slow.clock.advance(16 * 60_000);
    await armFault(slow.sandboxUrl, { delay_ms: 1000, status: 503, path_prefix: "/oauth/token", count: 1 });
    expect((await shopping(slow.t, "get_cart", connection.id)).status).toBe(502);
    const line = await eventually(() =>
      own.lines().find((l) => l.msg === "a token refresh no call waited for any more failed"),
    );
    expect(line).toMatchObject({
      level: 40,
      provider: "shopping",
      err: {
        message:
          'The shopping provider\'s authorization server did not refresh the access token: "response" is not a conform Token Endpoint response (unexpected HTTP status code): the server answered HTTP 503',
      },
    });
  } finally {
    await slow.close();
  }
});
