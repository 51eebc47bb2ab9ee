// Keyset pages newest first: ties on created_at broken by id, has_more exact at the list's end, and cursors refused
// unless they hold exactly what the list puts in them.
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GatewayError } from "./errors.ts";
import { decodeCursor, encodeCursor, newestFirstPage } from "./pagination.ts";

interface Items {
  items: { created_at: number; id: string };
}

let db: Kysely<Items>;

beforeAll(async () => {
  db = new Kysely<Items>({ dialect: new SqliteDialect({ database: new SQLite(":memory:") }) });
  await db.schema.createTable("items").addColumn("created_at", "integer").addColumn("id", "text").execute();
  // Inserted out of order, three of them at the same time.
  const rows: [number, string][] = [
    [2000, "b"],
    [1000, "a"],
    [2000, "d"],
    [3000, "e"],
    [2000, "c"],
  ];
  await db
    .insertInto("items")
    .values(rows.map(([created_at, id]) => ({ created_at, id })))
    .execute();
});
afterAll(async () => db?.destroy());

async function pages(limit: number) {
  const seen: { ids: string[]; has_more: boolean; next_cursor: string | null }[] = [];
  let cursor: string | undefined;
  do {
    const page = await newestFirstPage(db.selectFrom("items").selectAll(), cursor, limit);
    seen.push({ ids: page.items.map((item) => item.id), ...page.pagination });
    cursor = page.pagination.next_cursor ?? undefined;
  } while (cursor !== undefined && seen.length < 10);
  return seen;
}

describe("newestFirstPage", () => {
  it("orders by created_at then id, newest first, and resumes inside a run of equal times", async () => {
    expect(await pages(2)).toEqual([
      { ids: ["e", "d"], has_more: true, next_cursor: encodeCursor({ createdAt: 2000, id: "d" }) },
      { ids: ["c", "b"], has_more: true, next_cursor: encodeCursor({ createdAt: 2000, id: "b" }) },
      { ids: ["a"], has_more: false, next_cursor: null },
    ]);
  });

  it("says there is no more when the last page is exactly full", async () => {
    expect(await pages(5)).toEqual([{ ids: ["e", "d", "c", "b", "a"], has_more: false, next_cursor: null }]);
    expect((await pages(1)).map((page) => page.ids.join(""))).toEqual(["e", "d", "c", "b", "a"]);
  });
});

describe("decodeCursor", () => {
  it("answers the position encodeCursor put in", () => {
    expect(decodeCursor(encodeCursor({ createdAt: 1_767_225_600_123, id: "evt_1" }))).toEqual({
      createdAt: 1_767_225_600_123,
      id: "evt_1",
    });
  });

  it("refuses anything else with 400 invalid_request at /cursor", () => {
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    for (const cursor of [
      encode([1.5, "a"]),
      encode(["1", "a"]),
      encode([2 ** 53, "a"]),
      encode([1, 2]),
      encode([1, "a", "b"]),
      encode([1]),
      encode({ createdAt: 1, id: "a" }),
      encode([1, "a\u0000"]),
      "not a cursor",
      "",
    ]) {
      let caught: unknown;
      try {
        decodeCursor(cursor);
      } catch (error) {
        caught = error;
      }
      expect(caught, cursor).toBeInstanceOf(GatewayError);
      expect(caught).toMatchObject({
        code: "invalid_request",
        message: "The cursor is not one this list returned",
        details: [{ path: "/cursor", message: "is not valid" }],
      });
    }
  });
});
