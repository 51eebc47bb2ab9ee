// catalog over real HTTP through its sandbox: the mapping, cursor pagination, and upstream failures as gateway errors.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../../test/harness.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ env: { GATEWAY_UPSTREAM_TIMEOUT_MS: "500" } });
});
afterAll(async () => t?.close());

async function call(operation: string, body: unknown) {
  const response = await t.call("catalog", operation, body);
  return { status: response.status, body: (await response.json()) as any, headers: response.headers };
}

async function injectFault(fault: Record<string, unknown>) {
  const response = await fetch(`${t.gateway.upstreamUrls.catalog}/_sandbox/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(fault),
  });
  expect(response.status).toBe(201);
}

describe("catalog", () => {
  it("maps a product into the gateway's vocabulary", async () => {
    const { status, body } = await call("product_detail", { product_id: "cat-prd-0001" });
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      id: "cat-prd-0001",
      title: "新潟県産 コシヒカリ 令和6年産 5kg",
      price: { amount: 4480, currency: "JPY" },
      category: { id: "101", name: "米・雑穀" },
      category_path: [
        { id: "0", name: "すべてのジャンル" },
        { id: "100", name: "食品" },
        { id: "101", name: "米・雑穀" },
      ],
      shop: { id: "shop-01", name: "越後米穀店" },
      in_stock: true,
      rating: { count: 9 },
    });
    expect(JSON.stringify(body.data)).not.toMatch(/itemCode|itemName|genreId/);
  });

  it("pages through search results with opaque cursors until has_more is false", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const { status, body } = await call("search_products", { query: "米", limit: 4, ...(cursor && { cursor }) });
      expect(status).toBe(200);
      seen.push(...body.data.products.map((p: { id: string }) => p.id));
      expect(body.pagination.has_more).toBe(body.pagination.next_cursor !== null);
      cursor = body.pagination.next_cursor ?? undefined;
      pages += 1;
    } while (cursor && pages < 10);
    const first = await call("search_products", { query: "米", limit: 4 });
    expect(seen).toHaveLength(first.body.data.total);
    expect(new Set(seen).size).toBe(seen.length);
    expect(pages).toBe(Math.ceil(first.body.data.total / 4));
  });

  it("neither skips nor repeats a product when the limit changes during a walk", async () => {
    const all = await call("search_products", { limit: 100 });
    const ids = all.body.data.products.map((p: { id: string }) => p.id);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (const limit of [10, 20, 7, 3, 5, 1, 30, 30]) {
      const { status, body } = await call("search_products", { limit, ...(cursor && { cursor }) });
      expect(status).toBe(200);
      expect(body.data.products.length).toBeGreaterThan(0);
      expect(body.data.products.length).toBeLessThanOrEqual(limit);
      seen.push(...body.data.products.map((p: { id: string }) => p.id));
      cursor = body.pagination.next_cursor;
    }
    expect(seen).toEqual(ids.slice(0, seen.length));
  });

  it("refuses a cursor it did not issue", async () => {
    const { status, body } = await call("search_products", { cursor: "not-a-cursor" });
    expect(status).toBe(400);
    expect(body.error.details).toEqual([{ path: "/cursor", message: "is not valid" }]);
  });

  it("takes back only its own cursors: not another list's, not another account's, not an altered one", async () => {
    const first = await call("search_products", { query: "米", limit: 2 });
    const cursor = first.body.pagination.next_cursor as string;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect((await call("search_products", { query: "米", limit: 2, cursor })).status).toBe(200);

    const refused = (response: { status: number; body: any }) => {
      expect(response.status).toBe(400);
      expect(response.body.error).toEqual({
        code: "invalid_request",
        message: "The cursor is not one this list returned",
        request_id: expect.any(String),
        retryable: false,
        details: [{ path: "/cursor", message: "is not valid" }],
        fix: "Pass pagination.next_cursor of the previous page unchanged, with the same key's account and operation.",
      });
    };
    refused(await call("search_stores", { cursor }));
    await t.gateway.core.accounts.ensure("acme");
    const { key } = await t.gateway.core.apiKeys.create({ accountId: "acme", scopes: ["*"] });
    const otherAccount = await t.call(
      "catalog",
      "search_products",
      { query: "米", limit: 2, cursor },
      { authorization: `Bearer ${key}` },
    );
    refused({ status: otherAccount.status, body: await otherAccount.json() });
    // A page far past the end, in the clear or beside the sealed cursor: refused here, never sent to the provider.
    const farPage = Buffer.from('{"p":1000000000}').toString("base64url");
    refused(await call("search_products", { query: "米", cursor: farPage }));
    refused(await call("search_products", { query: "米", cursor: `${farPage}.${cursor}` }));
  });

  it("refuses an inverted price range and an ambiguous recommendation basis", async () => {
    expect((await call("search_products", { min_price: 5000, max_price: 100 })).status).toBe(400);
    const both = await call("recommend_products", { product_id: "cat-prd-0001", category_id: "101" });
    expect(both.status).toBe(400);
    expect(both.body.error.message).toBe("Give exactly one of product_id and category_id");
  });

  it("lists a broken rule beside the schema's problems in one 400", async () => {
    const { status, body, headers } = await call("search_products", { min_price: 5000, max_price: 100, colour: "red" });
    expect(status).toBe(400);
    expect(body).toEqual({
      error: {
        code: "invalid_request",
        message: "The input of catalog:search_products is invalid",
        request_id: headers.get("x-request-id"),
        retryable: false,
        details: [
          { path: "/colour", message: "is not an allowed property" },
          { path: "/min_price", message: "must be <= max_price" },
        ],
      },
    });
    // A rule reads only fields of the type it expects: a price of the wrong type is the schema's problem alone.
    const wrongType = await call("search_products", { min_price: "5000", max_price: 100 });
    expect(wrongType.body.error.details).toEqual([{ path: "/min_price", message: "must be integer" }]);
  });

  it("finds the stores nearest to a point, nearest first", async () => {
    const { body } = await call("search_stores", { near: { lat: 35.658, lng: 139.7016, radius_km: 3 }, limit: 5 });
    const distances = body.data.stores.map((s: { distance_km: number }) => s.distance_km);
    expect(distances.length).toBeGreaterThan(0);
    expect([...distances].sort((a, b) => a - b)).toEqual(distances);
    expect(distances.every((d: number) => d <= 3)).toBe(true);
  });

  it("answers an unknown category with 404 in a search, as in every other operation naming one", async () => {
    for (const operation of ["search_products", "browse_catalog"]) {
      const { status, body } = await call(operation, { category_id: "999" });
      expect(status, operation).toBe(404);
      expect(body.error).toEqual({
        code: "not_found",
        message: "The catalog provider found no such resource: genreId 999 is not found",
        request_id: expect.stringMatching(/^req_/),
        provider: "catalog",
        retryable: false,
      });
    }
  });

  it("passes a ward as long as its schema allows to the store search", async () => {
    const ward = "区".repeat(20);
    for (const operation of ["search_stores", "check_pickup_availability"]) {
      const input = operation === "search_stores" ? { ward } : { product_id: "cat-prd-0001", ward };
      const { status, body } = await call(operation, input);
      expect(status, operation).toBe(200);
      expect(body.data.stores, operation).toEqual([]);
    }
  });

  it("answers an unknown product with 404 not_found carrying the provider and its message", async () => {
    const { status, body } = await call("product_detail", { product_id: "cat-prd-9999" });
    expect(status).toBe(404);
    expect(body).toEqual({
      error: {
        code: "not_found",
        message: "The catalog provider found no such resource: itemCode cat-prd-9999 is not found",
        request_id: expect.stringMatching(/^req_/),
        provider: "catalog",
        retryable: false,
      },
    });
  });

  it("answers an upstream 503 with 502 provider_unavailable, retryable, with the provider", async () => {
    await injectFault({ status: 503, count: 1, path_prefix: "/api/v1/site" });
    const { status, body } = await call("site_metadata", {});
    expect(status).toBe(502);
    expect(body.error).toMatchObject({ code: "provider_unavailable", provider: "catalog", retryable: true });
    expect((await call("site_metadata", {})).status).toBe(200);
  });

  it("answers an upstream that does not answer in time with 502", async () => {
    await injectFault({ delay_ms: 2000, count: 1, path_prefix: "/api/v1/trends" });
    const { status, body } = await call("search_trends", {});
    expect(status).toBe(502);
    expect(body.error.message).toBe("The catalog provider did not answer within 500 ms");
    expect(body.error.provider).toBe("catalog");
  });

  it("answers an upstream 429 with a retryable 502 and its Retry-After", async () => {
    await injectFault({ status: 429, count: 1, retry_after: 7, path_prefix: "/api/v1/stores" });
    const { status, body, headers } = await call("store_detail", { store_id: "cat-str-001" });
    expect(status).toBe(502);
    expect(body.error).toMatchObject({ code: "provider_unavailable", provider: "catalog", retryable: true });
    expect(headers.get("retry-after")).toBe("7");
  });
});
