// The whole connect flow over real HTTP, the way a browser does it (redirects followed, the login and consent
// forms posted, cookies kept), then every cart operation with the new connection, checked field by field against
// exact expected objects and the operations' output schemas.
import { buildProducts, priceAt } from "@provider-gateway/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runConnectFlow } from "../../src/cli/connect-flow.ts";
import { FormBrowser } from "../../src/cli/form-browser.ts";
import { fieldProblems } from "../../src/providers/registry.ts";
import { createSession, eventsOf, platform, type ShoppingSetup, shopping, startShopping, T0 } from "./setup.ts";

let s: ShoppingSetup;
let connectionId: string;
const products = buildProducts();
const priceNow = (sku: string) =>
  priceAt(products.get(sku)!, { seed: "sakura-market", periodMs: 600_000 }, s.clock.now());
const yen = (amount: number) => ({ amount, currency: "JPY" });
const line = (sku: string, quantity: number) => ({
  product_id: sku,
  title: products.get(sku)!.item_name,
  quantity,
  price: yen(priceNow(sku)),
});

beforeAll(async () => {
  s = await startShopping();
});
afterAll(async () => s?.close());

/** Calls the operation, checks the envelope and that `data` passes the operation's own output schema. */
async function call(operation: string, body: unknown = {}) {
  const response = await shopping(s.t, operation, connectionId, body);
  const json = (await response.json()) as any;
  expect(response.status, JSON.stringify(json)).toBe(200);
  expect(json.meta).toEqual({ source: "shopping", fetched_at: new Date(s.clock.now()).toISOString() });
  expect(json.pagination).toBeNull();
  const { validateOutput } = s.t.gateway.registry.operation("shopping", operation)!;
  expect(validateOutput(json.data), JSON.stringify(fieldProblems(validateOutput.errors))).toBe(true);
  return json.data;
}

async function failure(operation: string, body: unknown) {
  const response = await shopping(s.t, operation, connectionId, body);
  return { status: response.status, error: ((await response.json()) as any).error };
}

describe("the hosted connect flow", () => {
  it("creates a session, walks the pages and the provider's forms, and ends on a success page", async () => {
    const session = await createSession(s.t, "user_8842");
    expect(session.token).toMatch(/^cst_[0-9A-Za-z]{32}$/);
    expect(session.connect_url).toBe(`${s.t.config.publicUrl}/connect/${session.token}`);
    expect(session.expires_at).toBe(new Date(T0 + 30 * 60_000).toISOString());

    const browser = new FormBrowser();
    const flow = await runConnectFlow({ connectUrl: session.connect_url, username: "demo", password: "demo", browser });
    expect(flow.ok, flow.message).toBe(true);
    expect(flow.message).toContain("Your Sakura Market account is connected");
    const paths = browser.visited.map(
      (u) => `${new URL(u).origin === s.sandboxUrl ? "sandbox" : "gateway"} ${new URL(u).pathname}`,
    );
    expect(paths).toEqual([
      `gateway /connect/${session.token}`,
      `gateway /connect/${session.token}`,
      "sandbox /oauth/authorize",
      "sandbox /oauth/login",
      "sandbox /oauth/consent",
      "sandbox /oauth/consent",
      "gateway /connect/callback",
    ]);
    const authorize = new URL(browser.visited[2]!);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${s.t.config.publicUrl}/connect/callback`);
    expect(authorize.searchParams.get("state")).toMatch(/^[\w-]{40,}$/);

    const { body } = await platform(s.t, "list_connections", { external_ref: "user_8842" });
    expect(body.data.connections).toHaveLength(1);
    const connection = body.data.connections[0];
    connectionId = connection.id;
    expect(connection).toEqual({
      id: expect.stringMatching(/^conn_[0-9A-Za-z]{22}$/),
      provider_id: "shopping",
      external_ref: "user_8842",
      status: "active",
      scopes: ["cart", "watchlist"],
      replaces: null,
      replaced_by: null,
      created_at: new Date(T0).toISOString(),
      updated_at: new Date(T0).toISOString(),
      last_refreshed_at: null,
      deleted_at: null,
    });
    // Nothing a browser saw names the connection.
    for (const url of browser.visited) expect(url).not.toContain(connectionId);
    expect(flow.page.html).not.toContain(connectionId);

    const created = await eventsOf(s.t, "connection.created");
    expect(created.map((e) => e.data.object)).toEqual([connection]);
  });

  it("refuses a second use of the same link", async () => {
    const session = await createSession(s.t, "user_once");
    const first = await runConnectFlow({ connectUrl: session.connect_url, username: "demo", password: "demo" });
    expect(first.ok).toBe(true);
    const again = await new FormBrowser().get(session.connect_url);
    expect(again.status).toBe(410);
    expect(again.html).toContain("This connect link was already used");
  });
});

describe("cart operations with the connection", () => {
  it("get_cart: an empty cart", async () => {
    expect(await call("get_cart")).toEqual({
      action: "get_cart",
      cart: { items: [], subtotal: yen(0), item_count: 0 },
    });
  });

  it("add_cart_item: quantity defaults to 1, repeats add up, item_count counts distinct items", async () => {
    expect(await call("add_cart_item", { product_id: "prod_0001" })).toEqual({
      action: "add_cart_item",
      added: true,
      cart: { items: [line("prod_0001", 1)], subtotal: yen(priceNow("prod_0001")), item_count: 1 },
    });
    await call("add_cart_item", { product_id: "prod_0001", quantity: 2 });
    const data = await call("add_cart_item", { product_id: "prod_0042", quantity: 1 });
    expect(data).toEqual({
      action: "add_cart_item",
      added: true,
      cart: {
        items: [line("prod_0001", 3), line("prod_0042", 1)],
        subtotal: yen(priceNow("prod_0001") * 3 + priceNow("prod_0042")),
        item_count: 2,
      },
    });
    expect(data.cart.items[0]).toEqual({
      product_id: "prod_0001",
      title: "【ひのき堂】新潟県産コシヒカリ 5kg",
      quantity: 3,
      price: yen(2980),
    });
  });

  it("add_cart_item: a strict body", async () => {
    const extra = await failure("add_cart_item", { product_id: "prod_0001", quantity: 1, colour: "red" });
    expect(extra.status).toBe(400);
    expect(extra.error.details).toEqual([{ path: "/colour", message: "is not an allowed property" }]);
    const missing = await failure("add_cart_item", { quantity: 0 });
    expect(missing.status).toBe(400);
    expect(missing.error.details).toEqual([
      { path: "/product_id", message: "is required" },
      { path: "/quantity", message: "must be >= 1" },
    ]);
  });

  it("maps the shop's refusals: unknown product 404, over 99 of one item 422, prod_offline 502", async () => {
    const unknown = await failure("add_cart_item", { product_id: "prod_9999" });
    expect(unknown).toMatchObject({
      status: 404,
      error: { code: "not_found", provider: "shopping", retryable: false },
    });
    const tooMany = await failure("add_cart_item", { product_id: "prod_0001", quantity: 97 });
    expect(tooMany).toMatchObject({
      status: 422,
      error: { code: "provider_rejected", provider: "shopping", retryable: false },
    });
    const offline = await failure("add_cart_item", { product_id: "prod_offline" });
    expect(offline.status).toBe(502);
    expect(offline.error).toEqual({
      code: "provider_unavailable",
      message: expect.stringContaining("shopping"),
      request_id: expect.stringMatching(/^req_/),
      provider: "shopping",
      retryable: true,
    });
  });

  it("remove_cart_item: removes the line, and says so only once", async () => {
    expect(await call("remove_cart_item", { product_id: "prod_0042" })).toEqual({
      action: "remove_cart_item",
      removed: true,
      cart: { items: [line("prod_0001", 3)], subtotal: yen(priceNow("prod_0001") * 3), item_count: 1 },
    });
    expect((await call("remove_cart_item", { product_id: "prod_0042" })).removed).toBe(false);
  });

  it("clear_cart: empties the cart", async () => {
    expect(await call("clear_cart")).toEqual({
      action: "clear_cart",
      cart: { items: [], subtotal: yen(0), item_count: 0 },
    });
    expect((await call("get_cart")).cart.item_count).toBe(0);
  });
});
