// Access tokens live 15 minutes at the shop. The gateway refreshes them before expiry (and when the shop refuses one
// early), exactly once however many calls (and gateway nodes) need it at the same moment; a refresh the shop refuses
// turns the connection to needs_reauth, and calls answer 422 provider_rejected.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../harness.ts";
import { armFault } from "../sandbox-faults.ts";
import { eventually } from "../webhooks/fake-clock.ts";
import { connect, eventsOf, platform, rawConnection, type ShoppingSetup, shopping, startShopping } from "./setup.ts";

const minutes = (n: number) => n * 60_000;
let s: ShoppingSetup;

beforeAll(async () => {
  s = await startShopping();
});
afterAll(async () => s?.close());

const refreshes = () => s.sandbox.oauth.stats().refresh_token;
const status = async (response: Response) => {
  await response.body?.cancel();
  return response.status;
};
/** Holds the shop's token endpoint for a moment, so that concurrent refreshes would overlap if they were allowed. */
const slowTokenEndpoint = () => armFault(s.sandboxUrl, { delay_ms: 300, path_prefix: "/oauth/token", count: 1 });

describe("token refresh", () => {
  it("refreshes an expired access token transparently", async () => {
    const { connection } = await connect(s.t, "refresh_expired");
    const before = refreshes();
    s.clock.advance(minutes(16));
    expect(await status(await shopping(s.t, "get_cart", connection.id))).toBe(200);
    expect(refreshes()).toBe(before + 1);
    const row = await rawConnection(s.t, connection.id);
    expect(row.token_version).toBe(1);
    expect(row.access_expires_at).toBe(s.clock.now() + minutes(15));
    expect(row.refresh_lock_owner).toBeNull();
    const { body } = await platform(s.t, "get_connection", { connection_id: connection.id });
    expect(body.data.connection.last_refreshed_at).toBe(new Date(s.clock.now()).toISOString());
  });

  it("refreshes and retries once when the shop refuses a token before its expiry", async () => {
    const { connection } = await connect(s.t, "refresh_early", { username: "demo2" });
    const before = refreshes();
    expect(s.sandbox.oauth.expireAccessTokens("demo2")).toBeGreaterThan(0);
    expect(await status(await shopping(s.t, "get_cart", connection.id))).toBe(200);
    expect(refreshes()).toBe(before + 1);
  });

  it("two concurrent calls refresh once", async () => {
    const { connection } = await connect(s.t, "refresh_concurrent");
    s.clock.advance(minutes(16));
    await slowTokenEndpoint();
    const before = refreshes();
    const answers = await Promise.all([
      shopping(s.t, "get_cart", connection.id),
      shopping(s.t, "list_price_watches", connection.id),
    ]);
    expect(await Promise.all(answers.map(status))).toEqual([200, 200]);
    expect(refreshes()).toBe(before + 1);
  });

  it("concurrent calls on two gateway nodes sharing the store refresh once", async () => {
    let second: TestGateway | undefined;
    try {
      second = await startTestGateway({
        clock: s.clock,
        shareStoreWith: s.t,
        env: { GATEWAY_UPSTREAM_SHOPPING_URL: s.sandboxUrl, GATEWAY_RATE_LIMIT_BURST: "100000" },
      });
      const { connection } = await connect(s.t, "refresh_two_nodes");
      s.clock.advance(minutes(16));
      await slowTokenEndpoint();
      const before = refreshes();
      const node2 = second;
      const answers = await Promise.all([
        ...[0, 1, 2].map(() => shopping(s.t, "get_cart", connection.id)),
        ...[0, 1, 2].map(() => shopping(node2, "get_cart", connection.id, {}, node2.key)),
      ]);
      expect(await Promise.all(answers.map(status))).toEqual([200, 200, 200, 200, 200, 200]);
      expect(refreshes()).toBe(before + 1);
      expect((await rawConnection(s.t, connection.id)).token_version).toBe(1);
    } finally {
      await second?.close();
    }
  });

  it("a shop that cannot refresh right now gives 502 and leaves the connection usable", async () => {
    const { connection } = await connect(s.t, "refresh_unavailable");
    s.clock.advance(minutes(16));
    await armFault(s.sandboxUrl, { status: 503, path_prefix: "/oauth/token", count: 1 });
    const failed = await shopping(s.t, "get_cart", connection.id);
    expect(failed.status).toBe(502);
    expect(((await failed.json()) as any).error).toMatchObject({ code: "provider_unavailable", provider: "shopping" });
    const row = await rawConnection(s.t, connection.id);
    expect([row.status, row.refresh_lock_owner]).toEqual(["active", null]);
    expect(await status(await shopping(s.t, "get_cart", connection.id))).toBe(200);
  });
});

describe("a new token the shop refuses too", () => {
  it("is a retryable 502 with the call not made, and the connection stays usable", async () => {
    const { connection } = await connect(s.t, "refused_twice");
    const before = refreshes();
    // The shop refuses the token it has, and then the one it issues in its place.
    await armFault(s.sandboxUrl, { status: 401, path_prefix: "/api/v2/cart", count: 2 });
    const refused = await shopping(s.t, "get_cart", connection.id);
    expect(refused.status).toBe(502);
    expect(((await refused.json()) as any).error).toEqual({
      code: "provider_unavailable",
      message: "The shopping provider refused the access token it had just issued; the call was not made. Retry it.",
      provider: "shopping",
      retryable: true,
      request_id: refused.headers.get("x-request-id"),
    });
    expect(refreshes()).toBe(before + 1);
    expect((await rawConnection(s.t, connection.id)).status).toBe("active");
    expect(await status(await shopping(s.t, "get_cart", connection.id))).toBe(200);
  });
});

describe("a refresh the shop refuses", () => {
  it("marks the connection needs_reauth, answers 422 with the provider, and records the event", async () => {
    const { connection } = await connect(s.t, "revoked_user", { username: "demo2" });
    // The shopper removes the app at the shop: every grant of theirs ends, refresh tokens included.
    const revoked = await fetch(`${s.sandboxUrl}/_sandbox/oauth/revoke-grants`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "demo2" }),
    });
    expect(((await revoked.json()) as any).revoked).toBeGreaterThan(0);
    s.clock.advance(minutes(16));

    const response = await shopping(s.t, "get_cart", connection.id);
    const body = (await response.json()) as any;
    expect(response.status).toBe(422);
    expect(body.error).toEqual({
      code: "provider_rejected",
      message: "The shopping account behind this connection must be authorised again",
      request_id: response.headers.get("x-request-id"),
      provider: "shopping",
      retryable: false,
      fix: expect.stringContaining("create_connect_session"),
    });
    const row = await rawConnection(s.t, connection.id);
    expect([row.status, row.access_token, row.refresh_token]).toEqual(["needs_reauth", null, null]);
    const events = await eventsOf(s.t, "connection.needs_reauth");
    expect(events.map((e) => [e.data.object.id, e.data.object.status])).toEqual([[connection.id, "needs_reauth"]]);

    // Further calls are refused by the gateway itself, without asking the shop again.
    const refused = s.sandbox.oauth.stats().refused;
    expect(await status(await shopping(s.t, "get_cart", connection.id))).toBe(422);
    expect(s.sandbox.oauth.stats().refused).toBe(refused);

    // Connecting the same external_ref again repairs it: a new connection replaces the old one.
    const again = await connect(s.t, "revoked_user", { username: "demo2" });
    expect(again.connection.replaces).toBe(connection.id);
    expect(await status(await shopping(s.t, "get_cart", again.connection.id))).toBe(200);
    expect(await status(await shopping(s.t, "get_cart", connection.id))).toBe(404);
  });

  it("also when the revoked access token is refused first (no clock movement)", async () => {
    const { connection } = await connect(s.t, "revoked_now");
    s.sandbox.oauth.revokeUserGrants("demo");
    const response = await shopping(s.t, "get_cart", connection.id);
    expect(response.status).toBe(422);
    expect(((await response.json()) as any).error).toMatchObject({ code: "provider_rejected", provider: "shopping" });
    expect((await rawConnection(s.t, connection.id)).status).toBe("needs_reauth");
  });
});

/** A shop and a gateway of the describe block's own, started with `options`; answers a getter for them. */
function ownShop(options: Parameters<typeof startShopping>[0]): () => ShoppingSetup {
  let own: ShoppingSetup | undefined;
  beforeAll(async () => {
    own = await startShopping(options);
  });
  afterAll(async () => own?.close());
  return () => own as ShoppingSetup;
}

describe("a token endpoint slower than the call's wait", () => {
  const slowShop = ownShop({ gateway: { env: { GATEWAY_UPSTREAM_TIMEOUT_MS: "500" } } });

  it("answers a retryable 502 while the refresh goes on, and keeps the rotated refresh token it brings", async () => {
    const slow = slowShop();
    const { connection } = await connect(slow.t, "slow_refresh");
    slow.clock.advance(minutes(16));
    const before = slow.sandbox.oauth.stats().refresh_token;
    // The shop takes 1.5 s to answer, and rotates the refresh token when it does: the old one is then used up.
    await armFault(slow.sandboxUrl, { delay_ms: 1500, path_prefix: "/oauth/token", count: 1 });
    const waited = await shopping(slow.t, "get_cart", connection.id);
    expect(waited.status).toBe(502);
    expect(((await waited.json()) as any).error).toEqual({
      code: "provider_unavailable",
      message:
        "The shopping provider's authorization server has not refreshed the access token within 0.5 s: the call was not made. The refresh goes on; retry the call.",
      provider: "shopping",
      retryable: true,
      request_id: waited.headers.get("x-request-id"),
    });
    await eventually(async () => ((await rawConnection(slow.t, connection.id)).token_version === 1 ? true : undefined));
    expect(slow.sandbox.oauth.stats().refresh_token).toBe(before + 1);
    expect(await status(await shopping(slow.t, "get_cart", connection.id))).toBe(200);
    const row = await rawConnection(slow.t, connection.id);
    expect([row.status, row.token_version, row.refresh_lock_owner]).toEqual(["active", 1, null]);
    expect(slow.sandbox.oauth.stats().refresh_token).toBe(before + 1);
  });
});

describe("short-lived access tokens", () => {
  const shortShop = ownShop({ sandbox: { oauth: { accessTokenTtlSeconds: 40 } } });

  it("are refreshed within half their lifetime of expiry, not on every call", async () => {
    const short = shortShop();
    const { connection } = await connect(short.t, "short_lived");
    const before = short.sandbox.oauth.stats().refresh_token;
    for (let i = 0; i < 3; i++) expect(await status(await shopping(short.t, "get_cart", connection.id))).toBe(200);
    expect(short.sandbox.oauth.stats().refresh_token).toBe(before);
    short.clock.advance(21_000);
    for (let i = 0; i < 3; i++) expect(await status(await shopping(short.t, "get_cart", connection.id))).toBe(200);
    expect(short.sandbox.oauth.stats().refresh_token).toBe(before + 1);
  });
});

describe("a node that stops while its refresh waits for the shop", () => {
  it("lets the refresh finish before it closes, and keeps the rotated tokens it brings", async () => {
    const second = await startTestGateway({
      clock: s.clock,
      shareStoreWith: s.t,
      env: {
        GATEWAY_UPSTREAM_SHOPPING_URL: s.sandboxUrl,
        GATEWAY_RATE_LIMIT_BURST: "100000",
        GATEWAY_UPSTREAM_TIMEOUT_MS: "500",
      },
    });
    const { connection } = await connect(s.t, "stop_mid_refresh");
    s.clock.advance(minutes(16));
    const before = refreshes();
    await armFault(s.sandboxUrl, { delay_ms: 1500, path_prefix: "/oauth/token", count: 1 });
    expect(await status(await shopping(second, "get_cart", connection.id, {}, second.key))).toBe(502);
    // Stopping as on SIGTERM: the call that waited has its answer; the refresh it started is still under way.
    await second.close();
    const row = await rawConnection(s.t, connection.id);
    expect([row.status, row.token_version, row.refresh_lock_owner]).toEqual(["active", 1, null]);
    expect(refreshes()).toBe(before + 1);
    expect(await status(await shopping(s.t, "get_cart", connection.id))).toBe(200);
    expect(refreshes()).toBe(before + 1);
  });
});

describe("a lifetime in a fraction of a second", () => {
  const oddShop = ownShop({ sandbox: { oauth: { accessTokenTtlSeconds: 900.0005 } } });

  it("connects and refreshes on either store, keeping whole milliseconds", async () => {
    const odd = oddShop();
    const { connection } = await connect(odd.t, "fractional_lifetime");
    expect((await rawConnection(odd.t, connection.id)).access_expires_at).toBe(odd.clock.now() + 900_000);
    odd.clock.advance(minutes(16));
    expect(await status(await shopping(odd.t, "get_cart", connection.id))).toBe(200);
    const row = await rawConnection(odd.t, connection.id);
    expect([row.status, row.token_version, row.access_expires_at]).toEqual(["active", 1, odd.clock.now() + 900_000]);
  });
});

describe("an Idempotency-Key on a call whose token could not be refreshed", () => {
  it("stays free: the call was not made, and the same key runs it once the shop answers", async () => {
    const { connection } = await connect(s.t, "refresh_then_retry");
    s.clock.advance(minutes(16));
    await armFault(s.sandboxUrl, { status: 503, path_prefix: "/oauth/token", count: 1 });
    const send = () =>
      shopping(s.t, "add_cart_item", connection.id, { product_id: "prod_0001" }, s.t.key, {
        "idempotency-key": "k-refresh-1",
      });
    const failed = await send();
    expect(failed.status).toBe(502);
    const retried = await send();
    expect(retried.status).toBe(200);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    const replayed = await send();
    expect([replayed.status, replayed.headers.get("idempotent-replayed")]).toEqual([200, "true"]);
  });
});
