// A store migrated by a newer version of the gateway: an older version refuses it, saying so, and changes nothing.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, expect, it } from "vitest";
import { openStore } from "./database.ts";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "newer-store-"));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

it("is refused with a message that names the newer migration", async () => {
  const store = openStore({ dataDir });
  try {
    expect(await store.migrate()).toEqual({ created: true });
    expect(await store.migrate()).toEqual({ created: false });
    // What a newer version leaves: a migration this one does not have.
    await sql`insert into kysely_migration (name, timestamp) values ('9999_from_the_future', '2030-01-01T00:00:00.000Z')`.execute(
      store.db,
    );
    await expect(store.migrate()).rejects.toThrow(
      new Error(
        "This store was migrated by a newer version of the gateway (its migration 9999_from_the_future is not one this version has): run that version or a newer one on it",
      ),
    );
  } finally {
    await store.close();
  }
});
