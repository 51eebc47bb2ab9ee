// The catalogue upstream's item, genre and site endpoints over real HTTP: native shapes, paging, 400 and 404.
import { describe, expect, it } from "vitest";
import { type Json, useSandbox } from "../shared/test-client.ts";

const catalog = useSandbox("catalog");

describe("catalog site and genres", () => {
  it("describes the site", async () => {
    const { status, body } = await catalog.get("/api/v1/site");
    expect(status).toBe(200);
    expect(body).toMatchObject({ currency: "JPY", locale: "ja-JP", itemCount: 200, storeCount: 30, topGenreCount: 9 });
    expect(body.reviewCount).toBeGreaterThan(400);
    expect(body.updatedAt).toBe("2026-01-15T09:00:00+09:00");
  });

  it("lists the genre tree with image URLs and item counts", async () => {
    const { body } = await catalog.get("/api/v1/genres");
    expect(body.genres).toHaveLength(9);
    const food = body.genres[0];
    expect(food).toMatchObject({ genreId: 100, genreName: "食品", genreLevel: 1, parentGenreId: 0 });
    expect(food.imageUrl).toMatch(/^https:\/\/.+\.jpg$/);
    expect(food.children.map((g: Json) => g.genreId)).toEqual([101, 102, 103]);
    expect(food.itemCount).toBe(food.children.reduce((sum: number, g: Json) => sum + g.itemCount, 0));
  });

  it("browses a genre page by page without overlap", async () => {
    const first = await catalog.get("/api/v1/genres/100/items?hits=10&page=1");
    const second = await catalog.get("/api/v1/genres/100/items?hits=10&page=2");
    expect(first.body).toMatchObject({ genre: { genreId: 100 }, page: 1, first: 1, last: 10, hits: 10 });
    expect(first.body.children).toHaveLength(3);
    expect(first.body.parents.map((g: Json) => g.genreId)).toEqual([0]);
    expect(first.body.pageCount).toBe(Math.ceil(first.body.count / 10));
    const codes = [...first.body.items, ...second.body.items].map((i: Json) => i.itemCode);
    expect(new Set(codes).size).toBe(20);
    for (const item of first.body.items) expect([101, 102, 103]).toContain(item.genreId);
    expect((await catalog.get("/api/v1/genres/999/items")).status).toBe(404);
    expect((await catalog.get("/api/v1/genres/abc/items")).status).toBe(400);
  });
});

describe("catalog item search", () => {
  it("finds items by keyword with Rakuten-style fields", async () => {
    const { body } = await catalog.get(`/api/v1/items/search?keyword=${encodeURIComponent("コーヒー 豆")}`);
    expect(body.count).toBeGreaterThan(0);
    for (const item of body.items) expect(item.itemName).toContain("コーヒー豆");
    expect(Object.keys(body.items[0])).toEqual(
      expect.arrayContaining(["itemCode", "itemName", "itemPrice", "shopName", "genreId", "reviewAverage", "janCode"]),
    );
  });

  it("searches the item caption too", async () => {
    const { body } = await catalog.get(`/api/v1/items/search?keyword=${encodeURIComponent("令和6年産（5kg）")}`);
    expect(body.items.map((i: Json) => i.itemCode)).toContain("cat-prd-0001");
    for (const item of body.items) expect(item.itemCaption).toContain("令和6年産（5kg）");
  });

  it("matches full-width and half-width forms alike, as it does upper and lower case", async () => {
    const codes = async (keyword: string) =>
      (await catalog.get(`/api/v1/items/search?keyword=${encodeURIComponent(keyword)}&hits=100`)).body.items.map(
        (i: Json) => i.itemCode,
      );
    const rice = await codes("コシヒカリ 5kg");
    expect(rice).toContain("cat-prd-0001");
    expect(await codes("ｺｼﾋｶﾘ　５ｋｇ")).toEqual(rice);
    expect(await codes("コシヒカリ 5KG")).toEqual(rice);
  });

  it("filters by price range and sorts by price both ways", async () => {
    const asc = await catalog.get("/api/v1/items/search?minPrice=1000&maxPrice=5000&sort=%2BitemPrice&hits=100");
    const prices = asc.body.items.map((i: Json) => i.itemPrice);
    expect(prices.length).toBeGreaterThan(10);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
    expect(Math.min(...prices)).toBeGreaterThanOrEqual(1000);
    expect(Math.max(...prices)).toBeLessThanOrEqual(5000);
    // An unencoded "+" arrives as a space and still means ascending.
    const unencoded = await catalog.get("/api/v1/items/search?minPrice=1000&maxPrice=5000&sort=+itemPrice&hits=100");
    expect(unencoded.body.items.map((i: Json) => i.itemPrice)).toEqual(prices);
    const desc = await catalog.get("/api/v1/items/search?sort=-itemPrice&hits=5");
    expect(desc.body.items[0].itemPrice).toBeGreaterThanOrEqual(desc.body.items[4].itemPrice);
  });

  it("pages through all 200 items", async () => {
    const last = await catalog.get("/api/v1/items/search?hits=30&page=7");
    expect(last.body).toMatchObject({ count: 200, page: 7, pageCount: 7, first: 181, last: 200 });
    expect((await catalog.get("/api/v1/items/search?hits=30&page=8")).body.items).toEqual([]);
  });

  it("refuses bad parameters with wrong_parameter", async () => {
    for (const query of ["page=0", "hits=101", "minPrice=-1", "sort=cheapest", "minPrice=500&maxPrice=100"]) {
      const { status, body } = await catalog.get(`/api/v1/items/search?${query}`);
      expect(status, query).toBe(400);
      expect(body).toEqual({ error: "wrong_parameter", error_description: expect.any(String) });
    }
  });

  it("answers a search in an unknown genre with 404, as every route naming a genre does", async () => {
    const { status, body } = await catalog.get("/api/v1/items/search?genreId=7");
    expect(status).toBe(404);
    expect(body).toEqual({ error: "not_found", error_description: "genreId 7 is not found" });
  });
});

describe("catalog item detail, reviews, recommendations and stock", () => {
  it("returns an item with its genre path, and 404 for an unknown code", async () => {
    const { body } = await catalog.get("/api/v1/items/cat-prd-0001");
    expect(body.item).toMatchObject({
      itemCode: "cat-prd-0001",
      itemName: "新潟県産 コシヒカリ 令和6年産 5kg",
      itemPrice: 4480,
      genreId: 101,
      shopName: "越後米穀店",
    });
    expect(body.item.genrePath.map((g: Json) => g.genreId)).toEqual([0, 100, 101]);
    const missing = await catalog.get("/api/v1/items/cat-prd-9999");
    expect(missing).toMatchObject({ status: 404, body: { error: "not_found" } });
  });

  it("pages through an item's reviews and filters by rating", async () => {
    const all = await catalog.get("/api/v1/items/cat-prd-0001/reviews?hits=50");
    expect(all.body.reviewCount).toBe(all.body.reviews.length);
    const review = all.body.reviews[0];
    expect(review).toMatchObject({ itemCode: "cat-prd-0001", reviewId: expect.stringMatching(/^cat-rev-\d{5}$/) });
    expect(review.postedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+09:00$/);
    const page = await catalog.get("/api/v1/items/cat-prd-0001/reviews?hits=2&page=2&sort=-rating");
    expect(page.body).toMatchObject({ page: 2, hits: 2, first: 3 });
    const fives = await catalog.get("/api/v1/items/cat-prd-0001/reviews?rating=5");
    expect(fives.body.count).toBe(all.body.ratingDistribution["5"]);
    expect((await catalog.get("/api/v1/items/cat-prd-9999/reviews")).status).toBe(404);
    expect((await catalog.get("/api/v1/items/cat-prd-0001/reviews?rating=6")).status).toBe(400);
  });

  it("recommends by item or by genre", async () => {
    const byItem = await catalog.get("/api/v1/recommendations?itemCode=cat-prd-0001&hits=5");
    expect(byItem.body.basis).toEqual({ itemCode: "cat-prd-0001", genreId: null });
    expect(byItem.body.items.map((r: Json) => r.rank)).toEqual([1, 2, 3, 4, 5]);
    expect(byItem.body.items.map((r: Json) => r.item.itemCode)).not.toContain("cat-prd-0001");
    expect(byItem.body.items[0].item.genreId).toBe(101);
    const byGenre = await catalog.get("/api/v1/recommendations?genreId=400&hits=3");
    for (const r of byGenre.body.items) expect([401, 402, 403]).toContain(r.item.genreId);
    expect((await catalog.get("/api/v1/recommendations")).status).toBe(400);
    expect((await catalog.get("/api/v1/recommendations?itemCode=cat-prd-0001&genreId=100")).status).toBe(400);
    expect((await catalog.get("/api/v1/recommendations?itemCode=nope")).status).toBe(404);
  });

  it("reports stock per store for pickup", async () => {
    const { body } = await catalog.get("/api/v1/items/cat-prd-0001/inventory");
    expect(body).toMatchObject({ itemCode: "cat-prd-0001", count: 30 });
    for (const s of body.stores) {
      expect(["in_stock", "low_stock", "out_of_stock"]).toContain(s.stockStatus);
      expect(s.stockStatus === "out_of_stock").toBe(s.stockQuantity === 0);
    }
    const two = await catalog.get("/api/v1/items/cat-prd-0001/inventory?storeIds=cat-str-001,cat-str-002");
    expect(two.body.stores.map((s: Json) => s.storeId)).toEqual(["cat-str-001", "cat-str-002"]);
    const ward = await catalog.get(`/api/v1/items/cat-prd-0001/inventory?ward=${encodeURIComponent("世田谷区")}`);
    expect(ward.body.stores.every((s: Json) => s.ward === "世田谷区")).toBe(true);
    const soldOut = await catalog.get("/api/v1/items/cat-prd-0037/inventory?inStockOnly=1");
    expect(soldOut.body.stores).toEqual([]);
    expect((await catalog.get("/api/v1/items/cat-prd-0001/inventory?storeIds=cat-str-999")).status).toBe(404);
  });
});
