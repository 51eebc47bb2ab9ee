// A migration that fails on PostgreSQL names the database it ran on, as a failure of the first use does: an operator
// with several deployments learns which one it was (never with its password).
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openStore } from "./database.ts";

const postgresUrl = process.env.GATEWAY_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const schema = `migration_failure_${process.pid}`;
const admin = new pg.Client({ connectionString: postgresUrl });

beforeAll(async () => {
  await admin.connect();
  // A table of the first migration's name already there, as another application's would be.
  await admin.query(`create schema ${schema}`);
  await admin.query(`create table ${schema}.accounts (other text)`);
});
afterAll(async () => {
  await admin.query(`drop schema if exists ${schema} cascade`);
  await admin.end();
});

it("names PostgreSQL and its location in the error", async () => {
  const store = openStore({ databaseUrl: postgresUrl, dataDir: "unused", schema });
  try {
    const { hostname, port, pathname } = new URL(postgresUrl);
    await expect(store.migrate()).rejects.toThrow(
      new Error(
        `Migration 0001_accounts_and_keys of PostgreSQL at ${hostname}:${port || "5432"}${pathname} (GATEWAY_DATABASE_URL) failed: error: relation "accounts" already exists`,
      ),
    );
  } finally {
    await store.close();
  }
});
