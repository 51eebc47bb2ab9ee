// better-sqlite3 behind Kysely with prepared statements reused: Kysely prepares every query afresh, and preparing
// costs more than running the small statements the gateway issues on each request. Statements are keyed by their SQL
// text; one still iterating (a streamed query) is never handed out twice.
import type SQLite from "better-sqlite3";
import type { SqliteDatabase, SqliteStatement } from "kysely";

const maxStatements = 1_000;

export function withStatementCache(database: SQLite.Database): SqliteDatabase {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close: () => database.close(),
    prepare(sql: string): SqliteStatement {
      const cached = statements.get(sql);
      if (cached && !cached.busy) return cached;
      const statement = database.prepare(sql);
      if (!cached) {
        // Queries with varying IN lists produce many texts; a full cache starts over rather than grow.
        if (statements.size >= maxStatements) statements.clear();
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}
