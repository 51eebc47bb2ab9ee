// opendata over real HTTP: postal codes and holidays, and their bad inputs; an upstream of zipcloud's own habits.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../../test/harness.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => t?.close());

async function call(operation: string, body: unknown) {
  const response = await t.call("opendata", operation, body);
  return { status: response.status, body: (await response.json()) as any };
}

describe("opendata", () => {
  it("looks up a postal code with or without the hyphen", async () => {
    for (const postal_code of ["1500001", "150-0001"]) {
      const { status, body } = await call("lookup_postal_code", { postal_code });
      expect(status).toBe(200);
      expect(body.data).toEqual({
        postal_code: "1500001",
        addresses: [
          expect.objectContaining({ postal_code: "1500001", prefecture: "東京都", city: "渋谷区", town: "神宮前" }),
        ],
      });
    }
  });

  it("answers an unknown postal code with 404 from the provider", async () => {
    const { status, body } = await call("lookup_postal_code", { postal_code: "9999999" });
    expect(status).toBe(404);
    expect(body.error).toMatchObject({ code: "not_found", provider: "opendata" });
  });

  it("refuses a malformed postal code before calling the provider", async () => {
    const { status, body } = await call("lookup_postal_code", { postal_code: "12-345" });
    expect(status).toBe(400);
    expect(body.error).not.toHaveProperty("provider");
    expect(body.error.details).toEqual([
      {
        path: "/postal_code",
        message: "must be 7 digits, with or without a hyphen after the third (1000001 or 100-0001)",
      },
    ]);
  });

  it("lists 2026's holidays, substitute and citizens' holidays included", async () => {
    const { status, body } = await call("list_holidays", { year: 2026 });
    expect(status).toBe(200);
    expect(body.data.holidays).toHaveLength(18);
    expect(body.data.holidays).toContainEqual({
      date: "2026-05-06",
      day_of_week: "Wed",
      name: "振替休日",
      name_en: "Substitute Holiday",
      kind: "substitute",
    });
    expect(body.data.holidays.find((h: { date: string }) => h.date === "2026-09-22")?.kind).toBe("citizens");
  });

  it("refuses years outside the covered range and non-integers", async () => {
    for (const year of [1999, 2036, 2026.5, "2026"]) {
      const { status, body } = await call("list_holidays", { year });
      expect(status).toBe(400);
      expect(body.error.details[0].path).toBe("/year");
    }
  });
});

describe("opendata against an upstream answering 200 with other shapes", () => {
  let upstream: http.Server;
  let other: TestGateway;
  beforeAll(async () => {
    // zipcloud answers an unknown postal code with 200 and `results: null`; the holidays answer here lacks its list.
    upstream = http.createServer((request, response) => {
      const url = new URL(request.url ?? "/", "http://upstream");
      // One code here covers 30 towns; zipcloud answers at most `limit` of them (20 unless asked).
      const towns = Array.from({ length: 30 }, (_, i) => ({
        zipcode: "4520961",
        prefcode: "23",
        address1: "愛知県",
        address2: "清須市",
        address3: `町${i + 1}`,
        kana1: "ｱｲﾁｹﾝ",
        kana2: "ｷﾖｽｼ",
        kana3: `ﾏﾁ${i + 1}`,
      }));
      const limit = Number(url.searchParams.get("limit") ?? 20);
      const results = url.searchParams.get("zipcode") === "4520961" ? towns.slice(0, limit) : null;
      const body = url.pathname === "/api/search" ? { status: 200, message: null, results } : {};
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    const { port } = upstream.address() as AddressInfo;
    other = await startTestGateway({ env: { GATEWAY_UPSTREAM_OPENDATA_URL: `http://127.0.0.1:${port}` } });
  });
  afterAll(async () => {
    await other?.close();
    upstream?.close();
  });

  it("lists every town of a postal code that has more than the upstream's default page of 20", async () => {
    const many = await other.call("opendata", "lookup_postal_code", { postal_code: "4520961" });
    expect(many.status).toBe(200);
    const towns = ((await many.json()) as any).data.addresses.map((a: { town: string }) => a.town);
    expect(towns).toEqual(Array.from({ length: 30 }, (_, i) => `町${i + 1}`));
  });

  it("answers `results: null` with 404 not_found, and a list missing from the answer with 502", async () => {
    const unknown = await other.call("opendata", "lookup_postal_code", { postal_code: "9999999" });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error).toMatchObject({
      code: "not_found",
      provider: "opendata",
      message: "The opendata provider has no address for postal code 9999999",
    });
    const holidays = await other.call("opendata", "list_holidays", { year: 2026 });
    expect(holidays.status).toBe(502);
    expect(((await holidays.json()) as any).error).toMatchObject({
      code: "provider_unavailable",
      provider: "opendata",
      retryable: true,
    });
  });
});
