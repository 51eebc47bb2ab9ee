// better-sqlite3 behind Kysely with prepared statements reused: Kysely prepares every query afresh, and preparing
// costs more than running the small statements the gateway issues on each request. Statements are keyed by their SQL
// text; one still iterating (a streamed query) is never handed out twice.
import type SQLite from "better-sqlite3";
import type { SqliteDatabase, SqliteStatement } from "kysely";
import { BoundedMap } from "../bounded-map.ts";

/** Statements kept prepared at most, the least recently run dropped first. */
const maxStatements = 1_000;

export function withStatementCache(database: SQLite.Database): SqliteDatabase {
  const statements = new BoundedMap<string, SQLite.Statement>(maxStatements);
  return {
    close: () => database.close(),
    prepare(sql: string): SqliteStatement {
      const cached = statements.get(sql);
      if (cached && !cached.busy) return cached;
      const statement = database.prepare(sql);
      // Queries with varying IN lists produce many texts: a full cache drops the least recently run, not the hot ones.
      if (!cached) statements.set(sql, statement);
      return statement;
    },
  };
}
