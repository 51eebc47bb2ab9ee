// homegoods over real HTTP: every answer is a category node and nothing else, at every depth.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../../test/harness.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => t?.close());

/** Walks a node tree and fails on any property a category node does not declare. */
function expectStrictNode(value: any, path = "data"): number {
  expect(
    Object.keys(value).every((k) => ["id", "title", "image_url", "children"].includes(k)),
    path,
  ).toBe(true);
  expect(typeof value.id).toBe("string");
  expect(typeof value.title).toBe("string");
  if ("image_url" in value) expect(value.image_url).toMatch(/^https:\/\//);
  let count = 1;
  for (const [index, child] of (value.children ?? []).entries())
    count += expectStrictNode(child, `${path}.children[${index}]`);
  return count;
}

const cases: [string, Record<string, unknown>][] = [
  ["product_categories", { depth: 3 }],
  ["browse_products", { category_id: "hg-10", limit: 5 }],
  ["product_detail", { product_id: "hgp-0001" }],
  ["site_metadata", {}],
  ["today_deals", { date: "2026-01-15" }],
];

describe("homegoods", () => {
  for (const [operation, input] of cases) {
    it(`${operation} answers a strict category node`, async () => {
      const response = await t.call("homegoods", operation, input);
      const body = (await response.json()) as any;
      expect(response.status).toBe(200);
      expect(expectStrictNode(body.data)).toBeGreaterThan(1);
    });
  }

  it("leaves image_url out when the upstream has no image", async () => {
    const response = await t.call("homegoods", "product_categories", { depth: 3 });
    const { data } = (await response.json()) as any;
    const find = (n: any, id: string): any =>
      n.id === id ? n : (n.children ?? []).map((c: any) => find(c, id)).find(Boolean);
    const imageless = find(data, "hg-102010");
    expect(imageless).toBeDefined();
    expect(imageless).not.toHaveProperty("image_url");
  });

  it("tells a category not expanded (past depth) from one without sub-categories", async () => {
    const tree = async (depth: number) =>
      ((await (await t.call("homegoods", "product_categories", { depth })).json()) as any).data;
    const find = (n: any, id: string): any =>
      n.id === id ? n : (n.children ?? []).map((c: any) => find(c, id)).find(Boolean);
    const shallow = find(await tree(1), "hg-10");
    expect(shallow).toBeDefined();
    expect(shallow).not.toHaveProperty("children");
    const deep = await tree(5);
    expect(find(deep, "hg-10").children.length).toBeGreaterThan(0);
    // A leaf, fully expanded, says it has none.
    const leaf = (n: any): any => (n.children?.length ? n.children.map(leaf).find(Boolean) : n);
    expect(leaf(deep).children).toEqual([]);
  });

  it("pages a category's products", async () => {
    const first = (await (
      await t.call("homegoods", "browse_products", { category_id: "hg-10", limit: 30 })
    ).json()) as any;
    expect(first.data.children).toHaveLength(30);
    expect(first.pagination.has_more).toBe(true);
    const second = (await (
      await t.call("homegoods", "browse_products", {
        category_id: "hg-10",
        limit: 30,
        cursor: first.pagination.next_cursor,
      })
    ).json()) as any;
    expect(second.data.children).toHaveLength(10);
    expect(second.pagination).toEqual({ next_cursor: null, has_more: false });
  });

  it("refuses a date outside the deal calendar as a failing field, before calling the store", async () => {
    for (const date of ["2019-12-31", "0000-01-01", "2036-01-01"]) {
      const response = await t.call("homegoods", "today_deals", { date });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: {
          code: "invalid_request",
          message: `date ${date} is outside the store's deal calendar`,
          request_id: response.headers.get("x-request-id"),
          retryable: false,
          details: [{ path: "/date", message: "must be between 2020-01-01 and 2035-12-31" }],
        },
      });
    }
    for (const date of ["2020-01-01", "2035-12-31"]) {
      expect((await t.call("homegoods", "today_deals", { date })).status).toBe(200);
    }
  });

  it("answers an unknown product with 404 and the provider", async () => {
    const response = await t.call("homegoods", "product_detail", { product_id: "hgp-9999" });
    const body = (await response.json()) as any;
    expect(response.status).toBe(404);
    expect(body.error).toMatchObject({ code: "not_found", provider: "homegoods", retryable: false });
  });
});
