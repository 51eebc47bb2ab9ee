// The shop's fixtures: 200 products with Japanese titles and yen prices that move per 10-minute period as a pure
// function of seed and clock; the public item endpoint; prod_offline answering 503 in the shop's error format.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildProducts, priceAt } from "./catalog.ts";
import { createShoppingSandbox } from "./server.ts";

const now = Date.UTC(2026, 10, 21);
const sandbox = createShoppingSandbox({ now: () => now });
let base = "";
beforeAll(async () => {
  base = await sandbox.app.listen({ host: "127.0.0.1", port: 0 });
});
afterAll(() => sandbox.app.close());

describe("shopping sandbox", () => {
  it("sells prod_0001 … prod_0200 with distinct Japanese titles", () => {
    const products = buildProducts();
    expect([...products.keys()]).toEqual(
      Array.from({ length: 200 }, (_, i) => `prod_${String(i + 1).padStart(4, "0")}`),
    );
    expect(new Set([...products.values()].map((p) => p.item_name)).size).toBe(200);
    for (const product of products.values()) {
      expect(product.item_name).toMatch(/[\u3040-\u30ff\u4e00-\u9faf]/);
      expect(Number.isInteger(product.list_price_jpy) && product.list_price_jpy > 0).toBe(true);
    }
  });

  it("moves prices per period, identically for the same seed and instant", () => {
    const products = [...buildProducts().values()];
    const clock = { seed: "sakura-market", periodMs: 600_000 };
    const at = (t: number) => products.map((p) => priceAt(p, clock, t));
    expect(at(now)).toEqual(at(now + 599_999 - (now % 600_000)));
    expect(at(now)).not.toEqual(at(now + 600_000));
    expect(products.map((p) => priceAt(p, { ...clock, seed: "other" }, now))).not.toEqual(at(now));
  });

  it("answers items publicly in its own shape, and prod_offline with 503", async () => {
    const item = (await (await fetch(`${base}/api/v2/items/prod_0001`)).json()) as any;
    expect(item.item).toMatchObject({
      sku: "prod_0001",
      item_name: "【ひのき堂】新潟県産コシヒカリ 5kg",
      list_price_jpy: 2980,
    });
    const offline = await fetch(`${base}/api/v2/items/prod_offline`);
    expect(offline.status).toBe(503);
    expect(await offline.json()).toEqual({
      error: { code: "SERVICE_UNAVAILABLE", message: "The item service is temporarily unavailable" },
    });
    const unknown = await fetch(`${base}/api/v2/items/prod_9999`);
    expect([unknown.status, ((await unknown.json()) as any).error.code]).toEqual([404, "ITEM_NOT_FOUND"]);
  });

  it("keeps carts behind a bearer token", async () => {
    const response = await fetch(`${base}/api/v2/cart`);
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain("Bearer");
  });
});
