// A pooled PostgreSQL connection ended under the gateway (a server restart, pg_terminate_backend): the store reports
// it and goes on with a new connection, instead of an `error` event ending the process.
import { sql } from "kysely";
import pg from "pg";
import { expect, it } from "vitest";
import { openStore, type Store } from "./database.ts";

const postgresUrl = process.env.GATEWAY_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** A store of one connection whose failures are collected, and an administrator's session that can end it. */
async function withWatchedStore(
  test: (store: Store, admin: pg.Client, errors: (Error & { code?: string })[]) => Promise<void>,
): Promise<void> {
  const errors: Error[] = [];
  const store = openStore({
    databaseUrl: postgresUrl,
    dataDir: "unused",
    poolSize: 1,
    onConnectionError: (error) => errors.push(error),
  });
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  try {
    await test(store, admin, errors);
  } finally {
    await admin.end();
    await store.close();
  }
}

const backendPid = async (db: Store["db"]) =>
  (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]?.pid;

async function untilReported(errors: Error[]): Promise<void> {
  for (let tries = 0; tries < 100 && errors.length === 0; tries++) await new Promise((r) => setTimeout(r, 20));
}

it("reports an idle connection that was ended, and serves the next query on a new one", () =>
  withWatchedStore(async (store, admin, errors) => {
    const first = await backendPid(store.db);
    // The pool's one connection is idle now; end it from another session.
    await admin.query("select pg_terminate_backend($1)", [first]);
    await untilReported(errors);
    expect(errors.map((error) => error.code)).toEqual(["57P01"]);

    const second = await backendPid(store.db);
    expect(second).toEqual(expect.any(Number));
    expect(second).not.toBe(first);
  }));

it("survives a connection ended while checked out between two statements of a transaction", () =>
  withWatchedStore(async (store, admin, errors) => {
    const outcome = await store.db
      .transaction()
      .execute(async (trx) => {
        // The connection is checked out and idle: its client, not the pool, emits the failure.
        await admin.query("select pg_terminate_backend($1)", [await backendPid(trx)]);
        await untilReported(errors);
        await sql`select 1`.execute(trx);
        return "committed";
      })
      .catch((error: Error) => error.message);
    expect(outcome).not.toBe("committed");
    // The administrator's termination, then possibly the connection's end: reported, never thrown at the process.
    expect(errors[0]?.code).toBe("57P01");
    const next = (await sql<{ one: number }>`select 1 as one`.execute(store.db)).rows[0]?.one;
    expect(next).toBe(1);
  }));
