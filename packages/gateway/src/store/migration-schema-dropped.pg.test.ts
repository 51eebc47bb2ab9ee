// Kysely's migrator looks for its tables among every schema's tables (PostgreSQL's catalog, as a whole): a schema that
// another deployment or a test run drops at that moment fails the look with "schema … does not exist". A node's start
// does not fail for it: the migration is tried again.
import { type DatabaseIntrospector, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openStore } from "./database.ts";

const postgresUrl = process.env.GATEWAY_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const schema = `schema_dropped_${process.pid}`;
const admin = new pg.Client({ connectionString: postgresUrl });

beforeAll(async () => {
  await admin.connect();
  await admin.query(`create schema ${schema}`);
});
afterAll(async () => {
  await admin.query(`drop schema if exists ${schema} cascade`);
  await admin.end();
});

it("migrates although another schema was dropped while the migrator read the catalog", async () => {
  const store = openStore({ databaseUrl: postgresUrl, dataDir: "unused", schema });
  try {
    const introspection = store.db.introspection;
    let looks = 0;
    const racing: DatabaseIntrospector = {
      ...introspection,
      getSchemas: () => introspection.getSchemas(),
      getMetadata: (options) => introspection.getMetadata(options),
      async getTables(options) {
        // The first look meets the error PostgreSQL gives for a schema dropped under it.
        if (looks++ === 0) await sql`select 'dropped_meanwhile.t'::regclass`.execute(store.db);
        return introspection.getTables(options);
      },
    };
    Object.defineProperty(store.db, "introspection", { value: racing });
    expect(await store.migrate()).toEqual({ created: true });
    expect(looks).toBeGreaterThan(1);
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from ${sql.table(`${schema}.accounts`)}`.execute(store.db);
    expect(rows).toEqual([{ n: 0 }]);
  } finally {
    await store.close();
  }
});
