// A statement past the store's timeout (GATEWAY_DATABASE_TIMEOUT_MS) is cancelled by the server before the gateway
// stops waiting for it: one that reached the server late (a slow network, a loaded server) and waits on a lock that is
// released just after the gateway's caller got its failure must not commit then.

import net from "node:net";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { randomBase62 } from "../core/ids.ts";
import { openStore, type Store } from "./database.ts";

const postgresUrl = new URL(process.env.GATEWAY_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test");

/** A TCP relay to PostgreSQL that holds what the client sends for `delayMs` before passing it on. */
function startDelayingRelay() {
  let delayMs = 0;
  const later = (action: () => void) => (delayMs > 0 ? setTimeout(action, delayMs) : action());
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(postgresUrl.port || 5432), postgresUrl.hostname);
    client.on("data", (chunk) => later(() => upstream.write(chunk)));
    client.on("close", () => later(() => upstream.end()));
    upstream.on("data", (chunk) => client.write(chunk));
    client.on("error", () => {});
    upstream.on("error", () => client.destroy());
    upstream.on("close", () => client.destroy());
  });
  return {
    listen: () =>
      new Promise<number>((resolve) =>
        server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port)),
      ),
    delay: (ms: number) => {
      delayMs = ms;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const relay = startDelayingRelay();
const schema = `t_${randomBase62(12).toLowerCase()}`;
let admin: pg.Client;
let store: Store;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: postgresUrl.href });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.query(`CREATE TABLE ${schema}.marks (id text PRIMARY KEY)`);
  const throughRelay = new URL(postgresUrl);
  throughRelay.host = `127.0.0.1:${await relay.listen()}`;
  store = openStore({ databaseUrl: throughRelay.href, dataDir: "unused", schema, poolSize: 1, timeoutMs: 400 });
  // The one connection is opened before the relay slows down: only the statement arrives late.
  await sql`select 1`.execute(store.db);
});
afterAll(async () => {
  await store?.close();
  await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin?.end();
  await relay.close();
});

it("does not commit a statement that reached the server late once the gateway stopped waiting for it", async () => {
  relay.delay(300);
  await admin.query("BEGIN");
  await admin.query(`LOCK TABLE ${schema}.marks IN EXCLUSIVE MODE`);
  const failed = await sql`insert into marks (id) values ('late')`.execute(store.db).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(failed).toBeInstanceOf(Error);
  await admin.query("ROLLBACK");
  // The statement has ended on the server (cancelled, or committed once the lock was released).
  for (;;) {
    const running = await admin.query(
      "SELECT 1 FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'insert into marks%'",
    );
    if (running.rows.length === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect((await admin.query(`SELECT id FROM ${schema}.marks`)).rows).toEqual([]);
});
