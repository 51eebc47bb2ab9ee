// The catalogue upstream's store and trend endpoints, its determinism and its fault injection, over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSandbox, startSandbox } from "../index.ts";
import { fetchJson, type Json, useSandbox } from "../shared/test-client.ts";

const catalog = useSandbox("catalog");
const q = encodeURIComponent;

describe("catalog stores", () => {
  it("searches stores by ward and keyword", async () => {
    const ward = await catalog.get(`/api/v1/stores/search?ward=${q("世田谷区")}`);
    expect(ward.body.count).toBe(3);
    expect(ward.body.stores.every((s: Json) => s.ward === "世田谷区" && s.prefecture === "東京都")).toBe(true);
    const keyword = await catalog.get(`/api/v1/stores/search?keyword=${q("渋谷")}`);
    expect(keyword.body.stores[0]).toMatchObject({ storeId: "cat-str-001", storeName: "ひなたストア 渋谷店" });
  });

  it("matches a keyword typed in full-width forms", async () => {
    const { body } = await catalog.get(`/api/v1/stores/search?keyword=${q("道玄坂２－１０")}`);
    expect(body.stores.map((s: Json) => s.storeId)).toEqual(["cat-str-001"]);
  });

  it("searches near a point, nearest first, within the radius", async () => {
    const shibuyaStation = "lat=35.658&lng=139.7016";
    const { body } = await catalog.get(`/api/v1/stores/search?${shibuyaStation}&radiusKm=3`);
    expect(body.stores[0].storeId).toBe("cat-str-001");
    const distances = body.stores.map((s: Json) => s.distanceKm);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    expect(Math.max(...distances)).toBeLessThanOrEqual(3);
    const osaka = await catalog.get("/api/v1/stores/search?lat=34.7025&lng=135.4959");
    expect(osaka.body.count).toBe(0);
    expect((await catalog.get("/api/v1/stores/search?lat=35.6")).status).toBe(400);
    expect((await catalog.get("/api/v1/stores/search?lat=95&lng=139")).status).toBe(400);
  });

  it("pages through all 30 stores", async () => {
    const page = await catalog.get("/api/v1/stores/search?hits=20&page=2");
    expect(page.body).toMatchObject({ count: 30, page: 2, pageCount: 2, first: 21, last: 30 });
  });

  it("returns store detail with hours and location, 404 for an unknown id", async () => {
    const { body } = await catalog.get("/api/v1/stores/cat-str-001");
    expect(body.store).toMatchObject({
      storeId: "cat-str-001",
      ward: "渋谷区",
      postalCode: "150-0043",
      fullAddress: "東京都渋谷区道玄坂2-10-7",
      pickupAvailable: true,
    });
    expect(body.store.openingHours).toHaveLength(7);
    expect(body.store.openingHours[0]).toEqual({ dayOfWeek: "monday", open: "10:00", close: "21:00" });
    expect(body.store.phone).toMatch(/^03-\d{4}-\d{4}$/);
    const missing = await catalog.get("/api/v1/stores/cat-str-999");
    expect(missing).toMatchObject({ status: 404, body: { error: "not_found" } });
  });
});

describe("catalog trends", () => {
  it("ranks keywords per period with the previous rank", async () => {
    for (const period of ["daily", "weekly", "monthly"]) {
      const { body } = await catalog.get(`/api/v1/trends?period=${period}&hits=10`);
      expect(body).toMatchObject({ period, count: 10, genreId: null });
      expect(body.trends.map((t: Json) => t.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(["up", "down", "same", "new"]).toContain(body.trends[0].rankChange);
    }
    const drinks = await catalog.get("/api/v1/trends?genreId=200");
    expect(drinks.body.trends.every((t: Json) => [201, 202, 203].includes(t.genreId))).toBe(true);
    // A genre's keywords are ranked among themselves, now and in the previous period, in the overall order.
    const overall = (await catalog.get("/api/v1/trends?hits=50")).body.trends as Json[];
    const ofDrinks = overall.filter((t) => [201, 202, 203].includes(t.genreId as number));
    expect(drinks.body.trends.map((t: Json) => [t.keyword, t.rank])).toEqual(
      ofDrinks.slice(0, 10).map((t, i) => [t.keyword, i + 1]),
    );
    const previous = ofDrinks
      .filter((t) => t.previousRank !== null)
      .sort((a, b) => (a.previousRank as number) - (b.previousRank as number))
      .map((t) => t.keyword);
    for (const trend of drinks.body.trends as Json[]) {
      const expected = previous.includes(trend.keyword as string)
        ? previous.indexOf(trend.keyword as string) + 1
        : null;
      expect([trend.keyword, trend.previousRank]).toEqual([trend.keyword, expected]);
      const rank = trend.rank as number;
      const change = expected === null ? "new" : expected > rank ? "up" : expected < rank ? "down" : "same";
      expect([trend.keyword, trend.rankChange]).toEqual([trend.keyword, change]);
    }
    expect((await catalog.get("/api/v1/trends?period=yearly")).status).toBe(400);
    expect((await catalog.get("/api/v1/trends?genreId=12345")).status).toBe(404);
  });
});

describe("catalog determinism", () => {
  let second: RunningSandbox;
  beforeAll(async () => {
    second = await startSandbox("catalog");
  });
  afterAll(() => second.close());

  it("serves identical data from two independent builds", async () => {
    const paths = [
      "/api/v1/items/search?hits=100&page=2",
      "/api/v1/items/cat-prd-0150/reviews?hits=50",
      "/api/v1/items/cat-prd-0042/inventory",
      "/api/v1/stores/search?hits=100",
      "/api/v1/trends?period=monthly&hits=40",
      "/api/v1/recommendations?itemCode=cat-prd-0100",
    ];
    for (const path of paths) {
      const [a, b] = await Promise.all([catalog.get(path), fetchJson(`${second.url}${path}`)]);
      expect(a.body, path).toEqual(b.body);
    }
  });
});

describe("catalog fault injection", () => {
  it("fails once with 503 in the catalogue's error format, then recovers", async () => {
    await catalog.post("/_sandbox/faults", { status: 503, path_prefix: "/api/v1/items" });
    expect((await catalog.get("/api/v1/site")).status).toBe(200);
    const failed = await catalog.get("/api/v1/items/cat-prd-0001");
    expect(failed).toMatchObject({ status: 503, body: { error: "service_unavailable" } });
    expect((await catalog.get("/api/v1/items/cat-prd-0001")).status).toBe(200);
  });
});
