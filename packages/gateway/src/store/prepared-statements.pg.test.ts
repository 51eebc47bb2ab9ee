// Statements prepared on PostgreSQL connections: a text with parameters is named on its second run and each
// connection parses it once; after a migration changes the rows such a statement answers, it is prepared again under a
// new name without the caller seeing anything. Inside a transaction nothing is named.
import { type Kysely, sql } from "kysely";
import pg from "pg";
import { afterEach, beforeEach, expect, it } from "vitest";
import { randomBase62 } from "../core/ids.ts";
import { openStore, type Store } from "./database.ts";

const postgresUrl = process.env.GATEWAY_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

let admin: pg.Client;
let schema: string;
const stores: Store[] = [];

beforeEach(async () => {
  schema = `prepared_${randomBase62(10).toLowerCase()}`;
  admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.query(`create table ${schema}.things (id int primary key, name text not null)`);
  await admin.query(`insert into ${schema}.things values (1, 'kettle'), (2, 'teapot')`);
});

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  await admin.query(`drop schema ${schema} cascade`);
  await admin.end();
});

/** A store of one connection, so that every statement below runs on the same session. */
function oneConnection(preparedStatements?: boolean): Kysely<unknown> {
  const store = openStore({
    databaseUrl: postgresUrl,
    dataDir: "unused",
    schema,
    poolSize: 1,
    ...(preparedStatements !== undefined && { preparedStatements }),
  });
  stores.push(store);
  return store.db as unknown as Kysely<unknown>;
}

const thing = (db: Kysely<unknown>, id: number) =>
  sql<Record<string, unknown>>`select * from things where id = ${id}`.execute(db).then((r) => r.rows);

/** The session's prepared statements (this query has no parameters: it is never prepared itself). */
const prepared = (db: Kysely<unknown>) =>
  sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements order by name`
    .execute(db)
    .then((r) => r.rows);

it("prepares a statement with parameters on its second run, then reuses it", async () => {
  const db = oneConnection();
  expect(await thing(db, 1)).toEqual([{ id: 1, name: "kettle" }]);
  expect(await prepared(db)).toEqual([]);

  expect(await thing(db, 2)).toEqual([{ id: 2, name: "teapot" }]);
  expect(await thing(db, 1)).toEqual([{ id: 1, name: "kettle" }]);
  expect(await prepared(db)).toEqual([{ name: "gw_1", statement: "select * from things where id = $1" }]);
});

it("prepares nothing with preparedStatements off (GATEWAY_NO_PREPARED_STATEMENTS)", async () => {
  const db = oneConnection(false);
  for (const id of [1, 2, 1]) await thing(db, id);
  expect(await prepared(db)).toEqual([]);
});

it("answers with the new rows after a migration changed what a prepared statement reads", async () => {
  const db = oneConnection();
  await thing(db, 1);
  await thing(db, 1);
  await admin.query(`alter table ${schema}.things add column price int not null default 12800`);

  // The server refuses gw_1 (its rows changed); the query is sent again under a new name and answers.
  expect(await thing(db, 1)).toEqual([{ id: 1, name: "kettle", price: 12800 }]);
  expect(await thing(db, 2)).toEqual([{ id: 2, name: "teapot", price: 12800 }]);
  expect((await prepared(db)).map((row) => row.name)).toEqual(["gw_1", "gw_2"]);
});

it("runs statements inside a transaction unnamed, so that a migration never fails a transaction", async () => {
  const db = oneConnection();
  for (const id of [1, 2, 1]) await db.transaction().execute((trx) => thing(trx, id));
  expect(await prepared(db)).toEqual([]);

  // Named outside a transaction, then the table changes: inside a transaction the text still answers, unnamed.
  await thing(db, 1);
  await thing(db, 1);
  expect((await prepared(db)).map((row) => row.name)).toEqual(["gw_1"]);
  await admin.query(`alter table ${schema}.things add column price int not null default 12800`);
  expect(await db.transaction().execute((trx) => thing(trx, 2))).toEqual([{ id: 2, name: "teapot", price: 12800 }]);
  expect((await prepared(db)).map((row) => row.name)).toEqual(["gw_1"]);
});
