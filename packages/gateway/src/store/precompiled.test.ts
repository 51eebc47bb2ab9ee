// Statements compiled once and run with new values, on the store under test (SQLite, and PostgreSQL in its project):
// each run binds its own values, and an IN list is compiled per count, whatever counts come in whatever order.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../test/harness.ts";
import { precompile, precompilePerCount } from "./precompiled.ts";
import type { Database } from "./schema.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
  for (const id of ["pc-a", "pc-b", "pc-c"]) await t.gateway.core.accounts.ensure(id, `name of ${id}`);
});
afterAll(async () => t?.close());

const idsOf = (result: { rows: unknown[] }) => (result.rows as { id: string }[]).map((row) => row.id).sort();

describe("precompiled statements", () => {
  it("bind the values of each run, constants kept", async () => {
    const db = t.gateway.core.store.db;
    const byName = precompile<"name", Database>(db, (p) =>
      db.selectFrom("accounts").select("id").where("name", "=", p("name")).where("id", "like", "pc-%"),
    );
    expect(idsOf(await byName({ name: "name of pc-b" }))).toEqual(["pc-b"]);
    expect(idsOf(await byName({ name: "name of pc-c" }))).toEqual(["pc-c"]);
    expect(idsOf(await byName({ name: "nobody" }))).toEqual([]);
  });

  it("compile an IN list once per count and run each count with its own values", async () => {
    const db = t.gateway.core.store.db;
    const byIds = precompilePerCount(db, (ids) => db.selectFrom("accounts").select("id").where("id", "in", ids));
    expect(idsOf(await byIds(["pc-a"]))).toEqual(["pc-a"]);
    expect(idsOf(await byIds(["pc-a", "pc-c"]))).toEqual(["pc-a", "pc-c"]);
    expect(idsOf(await byIds(["pc-b"]))).toEqual(["pc-b"]);
    expect(idsOf(await byIds(["pc-c", "pc-b", "pc-a"]))).toEqual(["pc-a", "pc-b", "pc-c"]);
    expect(idsOf(await byIds(["pc-b", "missing"]))).toEqual(["pc-b"]);
  });
});
