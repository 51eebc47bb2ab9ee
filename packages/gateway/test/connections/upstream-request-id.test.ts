// Every call the gateway makes to a provider's API for one of its requests carries that request's id in X-Request-Id.
// The shop's sandbox lists the requests it received (GET /_sandbox/requests).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { connect, type ShoppingSetup, shopping, startShopping } from "./setup.ts";

let s: ShoppingSetup;

beforeAll(async () => {
  s = await startShopping();
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
});
