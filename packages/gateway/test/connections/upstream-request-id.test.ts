// Every call the gateway makes to a provider for one of its requests carries that request's id in X-Request-Id: the
// API calls, the token refresh a call needs and the call again after it, the code exchange of a connect flow, the
// revocation of a deleted connection. The shop's sandbox lists the requests it received (GET /_sandbox/requests).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { captureLog } from "../log-capture.ts";
import { connect, type ShoppingSetup, shopping, startShopping } from "./setup.ts";

const log = captureLog();
let s: ShoppingSetup;

beforeAll(async () => {
  s = await startShopping({ gateway: { logger: { level: "info", stream: log.stream } } });
});
afterAll(async () => s?.close());

interface Seen {
  method: string;
  path: string;
  request_id: string | null;
}

/** What the shop received since the last forget(). */
async function seen(): Promise<Seen[]> {
  const response = await fetch(`${s.sandboxUrl}/_sandbox/requests`);
  return ((await response.json()) as { requests: Seen[] }).requests;
}
const forget = () => fetch(`${s.sandboxUrl}/_sandbox/requests`, { method: "DELETE" }).then((r) => r.body?.cancel());

/** The gateway's id of the request answered with `response` (its body read and dropped). */
async function idOf(response: Response): Promise<string> {
  await response.body?.cancel();
  expect(response.status).toBe(200);
  const id = response.headers.get("x-request-id");
  expect(id).toMatch(/^req_[0-9A-Za-z]+$/);
  return id as string;
}

const minutes = (n: number) => n * 60_000;

describe("the request id upstream", () => {
  let connectionId = "";
  beforeAll(async () => {
    connectionId = (await connect(s.t, "request_id")).connection.id;
  });
  beforeEach(forget);

  it("is on the call an operation makes", async () => {
    const id = await idOf(await shopping(s.t, "get_cart", connectionId));
    expect(await seen()).toEqual([{ method: "GET", path: "/api/v2/cart", request_id: id }]);
  });

  it("is the gateway's own, whatever X-Request-Id the client sent", async () => {
    const chosen = "req_chosen_by_the_client";
    const id = await idOf(await shopping(s.t, "get_cart", connectionId, {}, s.t.key, { "x-request-id": chosen }));
    expect(id).not.toBe(chosen);
    expect(await seen()).toEqual([{ method: "GET", path: "/api/v2/cart", request_id: id }]);
  });

  it("is on a call under an Idempotency-Key too, and each request's is its own", async () => {
    const headers = { "idempotency-key": "request-id-upstream-1" };
    const added = await idOf(
      await shopping(s.t, "add_cart_item", connectionId, { product_id: "prod_0042" }, s.t.key, headers),
    );
    const checked = await idOf(await shopping(s.t, "check_price_drops", connectionId));
    expect(added).not.toBe(checked);
    expect(await seen()).toEqual([
      { method: "POST", path: "/api/v2/cart/lines", request_id: added },
      { method: "GET", path: "/api/v2/watchlist", request_id: checked },
    ]);
  });

  it("is on the token refresh a call needs, and on the call after it", async () => {
    s.clock.advance(minutes(16));
    const id = await idOf(await shopping(s.t, "get_cart", connectionId));
    expect(await seen()).toEqual([
      { method: "POST", path: "/oauth/token", request_id: id },
      { method: "GET", path: "/api/v2/cart", request_id: id },
    ]);
  });

  it("is on the call the shop refused, the refresh, and the same call again", async () => {
    const { connection } = await connect(s.t, "request_id_refused", { username: "demo2" });
    await forget();
    expect(s.sandbox.oauth.expireAccessTokens("demo2")).toBeGreaterThan(0);
    const id = await idOf(await shopping(s.t, "get_cart", connection.id));
    expect(await seen()).toEqual([
      { method: "GET", path: "/api/v2/cart", request_id: id },
      { method: "POST", path: "/oauth/token", request_id: id },
      { method: "GET", path: "/api/v2/cart", request_id: id },
    ]);
  });
});

describe("the request id at the authorization server", () => {
  beforeEach(forget);

  it("is the callback's on the code exchange of a connect flow", async () => {
    const before = log.lines().length;
    await connect(s.t, "request_id_flow");
    const callback = log
      .lines()
      .slice(before)
      .filter((line) => typeof line.path === "string" && line.path.startsWith("/connect/callback"));
    expect(callback.length).toBe(1);
    const exchange = (await seen()).filter((r) => r.path === "/oauth/token");
    expect(exchange).toEqual([{ method: "POST", path: "/oauth/token", request_id: callback[0]?.request_id }]);
  });

  it("is the delete's on the revocation of a deleted connection", async () => {
    const { connection } = await connect(s.t, "request_id_delete");
    await forget();
    const response = await fetch(`${s.t.url}/v1/platform/delete_connection`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.t.key}`, "content-type": "application/json" },
      body: JSON.stringify({ connection_id: connection.id }),
    });
    const id = await idOf(response);
    expect(await seen()).toEqual([{ method: "POST", path: "/oauth/revoke", request_id: id }]);
  });
});
