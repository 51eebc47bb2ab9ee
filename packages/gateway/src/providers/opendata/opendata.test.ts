// opendata over real HTTP: postal codes and holidays, and their bad inputs.
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
      { path: "/postal_code", message: 'must match pattern "^[0-9]{3}-?[0-9]{4}$"' },
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
