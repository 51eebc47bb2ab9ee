// The home-goods upstream over real HTTP: the category tree, products per category, product detail with its
// categories, site info, daily deals, errors in `{errors: [...]}` form, determinism and fault injection.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSandbox, startSandbox } from "../index.ts";
import { fetchJson, type Json, useSandbox } from "../shared/test-client.ts";

const homegoods = useSandbox("homegoods");

const walk = (node: Json, visit: (n: Json) => void): void => {
  visit(node);
  for (const child of node.subCategories) walk(child, visit);
};

describe("homegoods categories", () => {
  it("serves the whole tree under a root category", async () => {
    const { status, body } = await homegoods.get("/store-api/categories");
    expect(status).toBe(200);
    expect(body.rootCategory).toMatchObject({ categoryCode: "hg-root", categoryName: "すべてのカテゴリ", level: 0 });
    expect(body.rootCategory.subCategories.map((c: Json) => c.categoryCode)).toEqual([
      "hg-10",
      "hg-20",
      "hg-30",
      "hg-40",
      "hg-50",
      "hg-60",
      "hg-70",
      "hg-80",
      "hg-90",
    ]);
    const codes: string[] = [];
    walk(body.rootCategory, (node) => {
      codes.push(node.categoryCode);
      expect(node.imageUrl === null || /^https:\/\/.+\.jpg$/.test(node.imageUrl)).toBe(true);
      expect(node.hasSubCategories).toBe(node.subCategories.length > 0);
    });
    expect(codes.length - 1).toBe(body.totalCount);
    expect(codes).toContain("hg-102010");
  });

  it("limits the depth and serves one category with its breadcrumbs", async () => {
    const shallow = await homegoods.get("/store-api/categories?depth=1");
    expect(shallow.body.rootCategory.subCategories[0].subCategories).toEqual([]);
    const beds = await homegoods.get("/store-api/categories/hg-1020");
    expect(beds.body.category).toMatchObject({ categoryCode: "hg-1020", categoryName: "ベッド", parentCode: "hg-10" });
    expect(beds.body.category.subCategories.map((c: Json) => [c.categoryCode, c.imageUrl])).toEqual([
      ["hg-102010", null],
      ["hg-102020", null],
    ]);
    expect(beds.body.breadcrumbs.map((c: Json) => c.categoryCode)).toEqual(["hg-10", "hg-1020"]);
    const missing = await homegoods.get("/store-api/categories/hg-99");
    expect(missing).toMatchObject({
      status: 404,
      body: { errors: [{ code: "NOT_FOUND", message: expect.any(String) }] },
    });
    expect((await homegoods.get("/store-api/categories?depth=9")).status).toBe(400);
  });

  it("lists a category's products, including sub-categories, page by page", async () => {
    const first = await homegoods.get("/store-api/categories/hg-10/products?perPage=15&sort=priceAsc");
    expect(first.body.paging).toMatchObject({ page: 1, perPage: 15, totalCount: 40, totalPages: 3, hasNext: true });
    const prices = first.body.products.map((p: Json) => p.salePrice ?? p.listPrice);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
    expect(Object.keys(first.body.products[0]).sort()).toEqual([
      "imageUrl",
      "listPrice",
      "productCode",
      "productName",
      "ratingAverage",
      "reviewCount",
      "salePrice",
      "stockStatus",
    ]);
    const last = await homegoods.get("/store-api/categories/hg-10/products?perPage=15&page=3&sort=priceAsc");
    expect(last.body.products).toHaveLength(10);
    expect(last.body.paging.hasNext).toBe(false);
    const feature = await homegoods.get("/store-api/categories/hg-90/products?perPage=60");
    expect(feature.body.paging.totalCount).toBe(28);
    expect((await homegoods.get("/store-api/categories/hg-10/products?sort=cheap")).status).toBe(400);
    expect((await homegoods.get("/store-api/categories/nope/products")).status).toBe(404);
  });
});

describe("homegoods products, site and deals", () => {
  it("returns product detail with every category it belongs to", async () => {
    const { body } = await homegoods.get("/store-api/products/hgp-0001");
    expect(body.product).toMatchObject({
      productCode: "hgp-0001",
      productName: "2人掛けソファ ファブリック ホワイト",
      currencyCode: "JPY",
      primaryCategoryCode: "hg-1010",
    });
    expect(body.product.categories.map((c: Json) => c.categoryCode)).toEqual(["hg-1010", "hg-90"]);
    expect(body.product.categories[0].breadcrumbs.map((c: Json) => c.categoryCode)).toEqual(["hg-10", "hg-1010"]);
    const missing = await homegoods.get("/store-api/products/hgp-9999");
    expect(missing).toMatchObject({ status: 404, body: { errors: [{ code: "NOT_FOUND" }] } });
  });

  it("describes the site with its top categories", async () => {
    const { body } = await homegoods.get("/store-api/site");
    expect(body.site).toMatchObject({ siteCode: "kurashi-no-mori", currencyCode: "JPY", locale: "ja-JP" });
    expect(body.site.logoUrl).toMatch(/^https:\/\//);
    expect(body.site.topCategories).toHaveLength(9);
    expect(body.site.topCategories[0]).toEqual({
      categoryCode: "hg-10",
      categoryName: "家具",
      imageUrl: expect.stringMatching(/hg-10\.jpg$/),
    });
  });

  it("serves eight deals per day, stable for a date and different the next day", async () => {
    const day = await homegoods.get("/store-api/deals/today?date=2026-01-15");
    expect(day.body.deal).toMatchObject({
      dealCode: "deal-20260115",
      dealDate: "2026-01-15",
      title: "本日のお買い得 1月15日",
    });
    expect(day.body.deal.items).toHaveLength(8);
    for (const item of day.body.deal.items) {
      expect(item.dealPrice).toBeLessThan(item.listPrice);
      expect(item.productCode).toMatch(/^hgp-\d{4}$/);
    }
    const again = await homegoods.get("/store-api/deals/today?date=2026-01-15");
    expect(again.body).toEqual(day.body);
    const next = await homegoods.get("/store-api/deals/today?date=2026-01-16");
    expect(next.body.deal.items).not.toEqual(day.body.deal.items);
    const today = await homegoods.get("/store-api/deals/today");
    expect(today.body.deal.dealDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const bad of ["2026-02-30", "20260115", "1999-01-01"]) {
      const { status, body } = await homegoods.get(`/store-api/deals/today?date=${bad}`);
      expect(status, bad).toBe(400);
      expect(body.errors[0].code).toBe("INVALID_PARAMETER");
    }
  });
});

describe("homegoods determinism and faults", () => {
  let second: RunningSandbox;
  beforeAll(async () => {
    second = await startSandbox("homegoods");
  });
  afterAll(() => second.close());

  it("serves identical data from two independent builds", async () => {
    for (const path of [
      "/store-api/categories",
      "/store-api/categories/hg-40/products?perPage=60",
      "/store-api/site",
    ]) {
      const [a, b] = await Promise.all([homegoods.get(path), fetchJson(`${second.url}${path}`)]);
      expect(a.body, path).toEqual(b.body);
    }
  });

  it("fails once with 503 in the store's error format, then recovers", async () => {
    await homegoods.post("/_sandbox/faults", { status: 503 });
    const failed = await homegoods.get("/store-api/site");
    expect(failed).toMatchObject({ status: 503, body: { errors: [{ code: "SERVICE_UNAVAILABLE" }] } });
    expect((await homegoods.get("/store-api/site")).status).toBe(200);
  });
});
