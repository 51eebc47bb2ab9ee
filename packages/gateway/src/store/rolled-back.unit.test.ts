// A transaction SQLite ends itself (a full disk, an I/O error, RAISE(ROLLBACK)) fails with SQLite's own error, not with
// the "cannot rollback" of the rollback that follows, so that the log names the cause; the store works on afterwards.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, expect, it } from "vitest";
import { openStore } from "./database.ts";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "rolled-back-"));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

it("fails with the error that ended the transaction, and keeps none of its writes", async () => {
  const store = openStore({ dataDir });
  try {
    await store.migrate();
    // What a full disk does in the middle of a transaction, in a form a test can cause: SQLite rolls the whole
    // transaction back and fails the statement.
    await sql`create temp trigger ends_the_transaction before insert on accounts when new.name = 'full'
      begin select raise(rollback, 'database or disk is full'); end`.execute(store.db);
    const insert = (trx: typeof store.db, id: string, name: string) =>
      sql`insert into accounts (id, name, created_at) values (${id}, ${name}, 0)`.execute(trx);
    await expect(
      store.db.transaction().execute(async (trx) => {
        await insert(trx, "acc_first", "first");
        await insert(trx, "acc_full", "full");
      }),
    ).rejects.toMatchObject({ code: "SQLITE_CONSTRAINT_TRIGGER", message: "database or disk is full" });
    const names = await sql<{ name: string }>`select name from accounts order by name`.execute(store.db);
    expect(names.rows).toEqual([]);
    await store.db.transaction().execute((trx) => insert(trx, "acc_after", "after"));
    expect((await sql<{ name: string }>`select name from accounts`.execute(store.db)).rows).toEqual([
      { name: "after" },
    ]);
  } finally {
    await store.close();
  }
});
