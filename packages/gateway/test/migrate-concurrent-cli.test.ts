// Several processes migrating one new SQLite store at once, as `gateway serve` and `gateway keys create` started
// together do: every one succeeds, and the store holds each migration once. (SQLite only: PostgreSQL takes Kysely's
// advisory lock.)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SQLite from "better-sqlite3";
import { afterAll, expect, it } from "vitest";
import { runCli } from "./cli.ts";
import { testStore } from "./harness.ts";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "migrate-concurrent-"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

it.skipIf(testStore() !== "sqlite")(
  "three `gateway migrate` on a new store at once all succeed, each migration applied once",
  { timeout: 120_000 },
  async () => {
    // Before migrations ran in one transaction that takes the write lock first, about one round in four failed.
    for (let round = 0; round < 6; round++) {
      const dataDir = path.join(root, String(round));
      const env = { GATEWAY_DATA_DIR: dataDir, GATEWAY_DATABASE_URL: "" };
      const runs = await Promise.all([1, 2, 3].map(() => runCli(["migrate", "--json"], { env })));
      expect(
        runs.map((run) => [run.code, run.stderr]),
        `round ${round}`,
      ).toEqual([
        [0, ""],
        [0, ""],
        [0, ""],
      ]);
      const db = new SQLite(path.join(dataDir, "gateway.db"), { readonly: true });
      try {
        const names = db.prepare("select name from kysely_migration order by name").pluck().all() as string[];
        expect(names.length).toBeGreaterThanOrEqual(8);
        expect(new Set(names).size).toBe(names.length);
      } finally {
        db.close();
      }
    }
  },
);
