// The public-data upstream over real HTTP: postal codes (zipcloud-style) and Japanese holidays, including substitute
// and citizens' holidays, errors in `{status, message, results: null}` form, determinism and fault injection.
import { describe, expect, it } from "vitest";
import { buildSandbox } from "../index.ts";
import { type Json, useSandbox } from "../shared/test-client.ts";

const opendata = useSandbox("opendata");
const holidayList = (body: Json): string[] => body.results.map((h: Json) => `${h.date} ${h.name}`);

describe("opendata postal codes", () => {
  it.each([
    ["1000001", "千代田区", "千代田", "チヨダ"],
    ["1500001", "渋谷区", "神宮前", "ジングウマエ"],
    ["1600022", "新宿区", "新宿", "シンジュク"],
  ])("looks up %s", async (zipcode, city, town, townKana) => {
    const { status, body } = await opendata.get(`/api/search?zipcode=${zipcode}`);
    expect(status).toBe(200);
    expect(body).toEqual({
      status: 200,
      message: null,
      results: [
        {
          zipcode,
          prefcode: "13",
          address1: "東京都",
          address2: city,
          address3: town,
          kana1: "トウキョウト",
          kana2: expect.any(String),
          kana3: townKana,
        },
      ],
    });
  });

  it("accepts a hyphenated code and covers cities beyond Tokyo", async () => {
    expect((await opendata.get("/api/search?zipcode=100-0001")).body.results[0].address3).toBe("千代田");
    const umeda = await opendata.get("/api/search?zipcode=5300001");
    expect(umeda.body.results[0]).toMatchObject({ prefcode: "27", address1: "大阪府", address2: "大阪市北区" });
    const coverage = await opendata.get("/api/holidays/coverage");
    expect(coverage.body.results.postalCodeCount).toBeGreaterThan(300);
  });

  it("answers 404 for an unknown code and 400 for a malformed one", async () => {
    expect(await opendata.get("/api/search?zipcode=9999999")).toMatchObject({
      status: 404,
      body: { status: 404, message: expect.any(String), results: null },
    });
    for (const bad of ["", "123", "12345678", "abcdefg", "１０００００１"]) {
      const { status, body } = await opendata.get(`/api/search?zipcode=${encodeURIComponent(bad)}`);
      expect(status, bad).toBe(400);
      expect(body).toMatchObject({ status: 400, results: null });
    }
    expect((await opendata.get("/api/search")).status).toBe(400);
  });
});

describe("opendata holidays", () => {
  it("lists 2025 with its substitute holidays", async () => {
    const { body } = await opendata.get("/api/holidays?year=2025");
    expect(body).toMatchObject({ status: 200, year: 2025, count: 19 });
    expect(holidayList(body)).toEqual([
      "2025-01-01 元日",
      "2025-01-13 成人の日",
      "2025-02-11 建国記念の日",
      "2025-02-23 天皇誕生日",
      "2025-02-24 振替休日",
      "2025-03-20 春分の日",
      "2025-04-29 昭和の日",
      "2025-05-03 憲法記念日",
      "2025-05-04 みどりの日",
      "2025-05-05 こどもの日",
      "2025-05-06 振替休日",
      "2025-07-21 海の日",
      "2025-08-11 山の日",
      "2025-09-15 敬老の日",
      "2025-09-23 秋分の日",
      "2025-10-13 スポーツの日",
      "2025-11-03 文化の日",
      "2025-11-23 勤労感謝の日",
      "2025-11-24 振替休日",
    ]);
  });

  it("lists 2026 with 振替休日 on 5/6 and 国民の休日 on 9/22", async () => {
    const { body } = await opendata.get("/api/holidays?year=2026");
    expect(holidayList(body)).toEqual([
      "2026-01-01 元日",
      "2026-01-12 成人の日",
      "2026-02-11 建国記念の日",
      "2026-02-23 天皇誕生日",
      "2026-03-20 春分の日",
      "2026-04-29 昭和の日",
      "2026-05-03 憲法記念日",
      "2026-05-04 みどりの日",
      "2026-05-05 こどもの日",
      "2026-05-06 振替休日",
      "2026-07-20 海の日",
      "2026-08-11 山の日",
      "2026-09-21 敬老の日",
      "2026-09-22 国民の休日",
      "2026-09-23 秋分の日",
      "2026-10-12 スポーツの日",
      "2026-11-03 文化の日",
      "2026-11-23 勤労感謝の日",
    ]);
    const citizens = body.results.find((h: Json) => h.date === "2026-09-22");
    expect(citizens).toEqual({
      date: "2026-09-22",
      dayOfWeek: "火",
      dayOfWeekEn: "Tue",
      name: "国民の休日",
      nameEn: "Citizens' Holiday",
      type: "citizens",
    });
    expect(body.results[1]).toMatchObject({ nameEn: "Coming of Age Day", type: "national" });
    expect(body.results[9]).toMatchObject({ nameEn: "Substitute Holiday", type: "substitute" });
  });

  it("gets 2024, 2027 and the special years 2019 to 2021 right", async () => {
    const y2024 = holidayList((await opendata.get("/api/holidays?year=2024")).body);
    expect(y2024).toHaveLength(21);
    expect(y2024).toEqual(
      expect.arrayContaining(["2024-02-12 振替休日", "2024-08-12 振替休日", "2024-11-04 振替休日"]),
    );
    const y2027 = holidayList((await opendata.get("/api/holidays?year=2027")).body);
    expect(y2027).toEqual(expect.arrayContaining(["2027-03-21 春分の日", "2027-03-22 振替休日", "2027-07-19 海の日"]));
    const y2019 = holidayList((await opendata.get("/api/holidays?year=2019")).body);
    expect(y2019).toEqual(expect.arrayContaining(["2019-04-30 国民の休日", "2019-05-01 天皇の即位の日"]));
    expect(y2019.some((h) => h.includes("天皇誕生日"))).toBe(false);
    const y2021 = holidayList((await opendata.get("/api/holidays?year=2021")).body);
    expect(y2021).toEqual(
      expect.arrayContaining(["2021-07-22 海の日", "2021-07-23 スポーツの日", "2021-08-08 山の日"]),
    );
  });

  it("answers 400 for a malformed year and 404 for a year without data", async () => {
    for (const bad of ["", "26", "twenty", "2026.5"]) {
      expect((await opendata.get(`/api/holidays?year=${bad}`)).status, bad).toBe(400);
    }
    expect(await opendata.get("/api/holidays?year=1999")).toMatchObject({ status: 404, body: { results: null } });
  });
});

describe("opendata determinism and faults", () => {
  it("serves identical data from two builds", async () => {
    const [a, b] = [buildSandbox("opendata"), buildSandbox("opendata")];
    for (const url of ["/api/search?zipcode=1600022", "/api/holidays?year=2026"]) {
      const [x, y] = await Promise.all([a.inject({ url }), b.inject({ url })]);
      expect(x.json()).toEqual(y.json());
    }
    await Promise.all([a.close(), b.close()]);
  });

  it("fails once with 503 in the public-data error format, then recovers", async () => {
    await opendata.post("/_sandbox/faults", { status: 503, path_prefix: "/api/holidays" });
    expect(await opendata.get("/api/holidays?year=2026")).toMatchObject({
      status: 503,
      body: { status: 503, results: null },
    });
    expect((await opendata.get("/api/holidays?year=2026")).status).toBe(200);
  });
});
