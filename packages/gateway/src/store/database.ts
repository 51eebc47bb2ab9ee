// Opens the store: embedded SQLite (WAL) in the data directory by default, PostgreSQL when a URL is configured.
import fs from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import {
  CompiledQuery,
  type DialectAdapter,
  type Driver,
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteAdapter,
  SqliteDialect,
  type SqliteDialectConfig,
  sql,
} from "kysely";
import pg from "pg";
import { type Checkpointer, type CheckpointerOptions, startCheckpointer } from "./checkpointer.ts";
import { dataDirError, makeDataDir } from "./data-dir.ts";
import { migrationProvider } from "./migrations/index.ts";
import { withPreparedStatements } from "./prepared-statements.ts";
import type { Database } from "./schema.ts";
import { withStatementCache } from "./statement-cache.ts";

export type StoreKind = "sqlite" | "postgres";

export interface Store {
  db: Kysely<Database>;
  kind: StoreKind;
  /** Where the store is, for messages: the SQLite file, or PostgreSQL's host, port and database (no credentials). */
  location: string;
  /**
   * Applies pending migrations; safe to call on every start and from several nodes at once. `created`: this call
   * applied the first migration, so the store was empty (a new SQLite file, an empty database or schema).
   */
  migrate(): Promise<{ created: boolean }>;
  /** Resolves when the store answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** SQLite with background checkpoints: the worker that runs them. */
  readonly checkpointer?: Checkpointer;
}

export interface StoreOptions {
  databaseUrl?: string | undefined;
  dataDir: string;
  /** PostgreSQL schema to use instead of `public` (tests isolate themselves this way). */
  schema?: string;
  poolSize?: number;
  /** PostgreSQL: prepare statements run more than once on each connection (store/prepared-statements.ts); default on. */
  preparedStatements?: boolean;
  /**
   * PostgreSQL: how long opening a connection, and the answer to a statement, may take; past it the statement fails
   * and its connection, which may be dead (a frozen server, a partition), is closed rather than reused. Default 30 s.
   */
  timeoutMs?: number;
  /** SQLite: checkpoint the write-ahead log on a worker thread instead of on the committing connection. */
  backgroundCheckpoints?: CheckpointerOptions;
  /**
   * PostgreSQL: a pooled connection failed (the server restarted, an administrator ended it). The pool drops it and
   * opens another when next needed; without a listener, node would end the process on the `error` event.
   */
  onConnectionError?: (error: Error) => void;
}

// int8 and numeric columns come back from pg as strings; our times and counts fit in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export function openStore(options: StoreOptions): Store {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options);
  makeDataDir(options.dataDir);
  const file = path.join(options.dataDir, "gateway.db");
  // Readable by its owner only, as master.key is: it holds events with end users' names and addresses. SQLite gives
  // its -wal and -shm files the database file's mode. An existing file keeps the mode it has.
  try {
    fs.closeSync(fs.openSync(file, "a", 0o600));
  } catch (error) {
    throw dataDirError(options.dataDir, (error as Error).message);
  }
  const sqlite = new SQLite(file);
  try {
    // The first statement reads the file: one that is not a SQLite database fails here, and is named.
    sqlite.pragma("journal_mode = WAL");
  } catch (error) {
    sqlite.close();
    throw dataDirError(options.dataDir, `${(error as Error).message} (${file})`);
  }
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("foreign_keys = ON");
  const db = new Kysely<Database>({
    dialect: new ImmediateSqliteDialect(sqlite, { database: withStatementCache(sqlite) }),
  });
  const store = withFileCheck(finishStore(db, "sqlite", undefined, file), file);
  if (!options.backgroundCheckpoints) return store;
  const checkpointer = startCheckpointer(sqlite, file, options.backgroundCheckpoints);
  return {
    ...store,
    checkpointer,
    async close() {
      // The serving connection closes last: as the last connection it checkpoints what is left and removes the log.
      await checkpointer.close();
      await store.close();
    },
  };
}

/** What the SQLite store's ping throws once its file is no longer the one it opened (withFileCheck). */
export class StoreFileReplaced extends Error {}

/**
 * The store's ping (/readyz) fails once its file is no longer the one it opened: a data directory deleted or a file
 * replaced while the gateway runs leaves it writing to a file nobody can open again, lost when it stops, and without
 * its serving lock (a second node could start on the directory). The node is taken out of rotation instead.
 */
function withFileCheck(store: Store, file: string): Store {
  const opened = fs.statSync(file);
  return {
    ...store,
    async ping() {
      let now: fs.Stats | undefined;
      try {
        now = fs.statSync(file);
      } catch {}
      if (now?.ino !== opened.ino || now.dev !== opened.dev) {
        throw new StoreFileReplaced(
          `${file} was deleted or replaced while the gateway ran: what this node writes is lost when it stops; ` +
            "stop it, restore the data directory and start it again",
        );
      }
      await store.ping();
    },
  };
}

/**
 * SQLite with transactions that take the write lock when they begin (`BEGIN IMMEDIATE`), waiting up to the busy
 * timeout for another process's to end, instead of when they first write: a deferred transaction that read and then
 * writes after another process wrote fails at once. And migrations run in one such transaction (SQLite's DDL is
 * transactional; Kysely runs it without one): two processes migrating a new store (`gateway serve` and `gateway keys
 * create` started together) both found a migration to run, and one failed on a table the other had just created; the
 * second now waits, then finds nothing left to do. In one process nothing changes: its one connection runs one
 * transaction at a time. A transaction SQLite has rolled back itself (a full disk, an I/O error) is not rolled back
 * again: that rollback would fail ("no transaction is active") and its error would replace the one that says why.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  constructor(
    private readonly sqlite: SQLite.Database,
    config: SqliteDialectConfig,
  ) {
    super(config);
  }

  override createAdapter(): DialectAdapter {
    return new (class extends SqliteAdapter {
      override get supportsTransactionalDdl() {
        return true;
      }
    })();
  }

  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection) => {
      await connection.executeQuery(CompiledQuery.raw("begin immediate"));
    };
    driver.rollbackTransaction = async (connection) => {
      if (this.sqlite.inTransaction) await connection.executeQuery(CompiledQuery.raw("rollback"));
    };
    return driver;
  }
}

/** Where a PostgreSQL URL points, without its user or password: for messages. */
function postgresTarget(url: string): string {
  try {
    const { hostname, port, pathname } = new URL(url);
    return `${hostname}:${port || "5432"}${pathname}`;
  } catch {
    return "the configured database";
  }
}

/** How much longer than the server's statement_timeout the client waits for a statement's answer. */
const serverCancelGraceMs = 1_000;

function openPostgres(url: string, options: StoreOptions): Store {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: timeoutMs,
    // The server gives up on the statement first, and answers so: one the client stopped waiting for (its request
    // answered 500) must not run to its commit later, when the lock it waited on is released. The server's count starts
    // when the statement reaches it, later than the client's, so the client waits a little longer for that answer.
    statement_timeout: timeoutMs,
    query_timeout: timeoutMs + serverCancelGraceMs,
    keepAlive: true,
    ...(options.schema && { options: `-c search_path=${options.schema}` }),
  });
  pool.on("connect", closeWhenUnanswered);
  // Every failure of a connection, idle or checked out (its backend ended in the middle of a transaction), is an
  // `error` event on its client: listen to every client for its whole life. The pool re-emits an idle client's error
  // on itself, and throws it when nobody listens there; it was reported by the client's listener already. The query
  // in flight fails on its own; the pool replaces the connection.
  pool.on("connect", (client) => client.on("error", (error) => options.onConnectionError?.(error)));
  pool.on("error", () => {});
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: options.preparedStatements === false ? pool : withPreparedStatements(pool) }),
  });
  const store = finishStore(db, "postgres", options.schema, postgresTarget(url));
  return {
    ...store,
    async migrate() {
      // The first use of the database: one that cannot be reached or entered is named (never with its password).
      await sql`select 1`.execute(db).catch((error: unknown) => {
        throw new Error(
          `Could not use PostgreSQL at ${store.location} (GATEWAY_DATABASE_URL): ${(error as Error).message}`,
          { cause: error },
        );
      });
      return store.migrate();
    },
  };
}

/**
 * pg fails a statement that got no answer within `query_timeout`, but keeps the connection, which waits for that answer
 * before running anything else: from a frozen server or across a partition it never comes, and every later statement
 * on the connection would wait out its own timeout in turn. Such a connection is closed instead; the pool opens a
 * new one when next needed.
 */
function closeWhenUnanswered(client: pg.PoolClient): void {
  const query = client.query;
  client.query = function (this: pg.PoolClient, ...args: unknown[]) {
    const result = (query as (...a: unknown[]) => unknown).apply(this, args);
    if (result instanceof Promise) {
      result.catch((error: unknown) => {
        if ((error as Error)?.message === "Query read timeout") {
          (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
        }
      });
    }
    return result;
  } as typeof client.query;
}

function finishStore(db: Kysely<Database>, kind: StoreKind, schema: string | undefined, location: string): Store {
  return {
    db,
    kind,
    location,
    async migrate() {
      // On PostgreSQL the migration tables live in the schema the connection works in (a search_path given in the
      // URL included): Kysely would otherwise look for them in every schema and could find another deployment's.
      const tableSchema =
        schema ??
        (kind === "postgres"
          ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
          : undefined);
      const migrator = new Migrator({
        db,
        provider: migrationProvider,
        ...(tableSchema && { migrationTableSchema: tableSchema }),
      });
      // Kysely looks for its tables among the tables of every schema (one catalog query): a schema dropped meanwhile,
      // by another deployment or a test run on the same database, fails that look with "schema … does not exist"
      // (3F000) before anything is migrated. It is tried again, a few times.
      let { error, results } = await migrator.migrateToLatest();
      for (
        let retry = 0;
        retry < 5 && results === undefined && (error as { code?: string })?.code === "3F000";
        retry++
      ) {
        ({ error, results } = await migrator.migrateToLatest());
      }
      const failed = results?.find((r) => r.status === "Error");
      const unknown = /previously executed migration (\S+) is missing/.exec(String(error));
      if (unknown) {
        throw new Error(
          `This store was migrated by a newer version of the gateway (its migration ${unknown[1]} is not one this ` +
            "version has): run that version or a newer one on it",
          { cause: error },
        );
      }
      if (error || failed) {
        const which = failed ? `Migration ${failed.migrationName}` : "Migrating the store";
        // Named as the first use names it: a connection lost in the middle says which database it was.
        const where = kind === "postgres" ? ` of PostgreSQL at ${location} (GATEWAY_DATABASE_URL)` : "";
        throw new Error(`${which}${where} failed: ${String(error)}`, { cause: error });
      }
      const [first] = Object.keys(await migrationProvider.getMigrations()).sort();
      return { created: results?.some((r) => r.migrationName === first && r.status === "Success") ?? false };
    },
    async ping() {
      await db.selectFrom("accounts").select("id").limit(1).execute();
    },
    close: () => db.destroy(),
  };
}
