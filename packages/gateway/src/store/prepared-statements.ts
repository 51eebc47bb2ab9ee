// PostgreSQL behind Kysely with server-side prepared statements: Kysely sends every query as an unnamed statement,
// which the server parses, analyses and plans afresh each time. A statement with parameters that this process has run
// before, outside a transaction, is sent named instead: each connection parses it once, then only binds and executes
// it (a fresh Idempotency-Key's claim and completion, for one, take about a third less of the server's CPU:
// docs/scaling.md). The SQLite side does the same with withStatementCache. Behind a connection pooler that does not
// keep prepared statements (PgBouncer in transaction mode before 1.21), GATEWAY_NO_PREPARED_STATEMENTS turns this off.
//
// A named statement keeps the row type it was prepared with: after a migration changes a table it reads (a node of a
// newer version migrated while this one runs), the server refuses it with "cached plan must not change result type".
// The refusal comes before the statement does anything, so the text gets a new name, prepared afresh on each
// connection, and the query is sent again under it: the caller sees nothing. That is safe only outside a transaction
// (inside one, the refusal would have aborted it), which is why statements inside a transaction are never named: a
// migration never fails a transaction. A request's hot statements (an API key's lookup, an Idempotency-Key's claim,
// replay and completion) each run on their own.
import type { PostgresCursor, PostgresPool, PostgresPoolClient } from "kysely";
import type pg from "pg";
import { BoundedMap } from "../bounded-map.ts";

/**
 * Texts named at most, per pool: what each connection may come to hold on the server. The gateway's statements are
 * far fewer; texts beyond these (the many lengths of an IN list, say) run unnamed, as before.
 */
const maxNamed = 256;

/** A statement's text seen once, kept to name it the second time: texts run once (DDL, rare queries) stay unnamed. */
const maxSeenOnce = 10_000;

export function withPreparedStatements(pool: pg.Pool): PostgresPool {
  const names = new Map<string, string>();
  const seenOnce = new BoundedMap<string, true>(maxSeenOnce);
  let issued = 0;

  const nameFor = (text: string): string | undefined => {
    const name = names.get(text);
    if (name !== undefined || issued >= maxNamed) return name;
    if (seenOnce.get(text) === undefined) {
      seenOnce.set(text, true);
      return undefined;
    }
    seenOnce.delete(text);
    return rename(text);
  };
  const rename = (text: string) => {
    const name = `gw_${++issued}`;
    names.set(text, name);
    return name;
  };

  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    const query = (text: string | PostgresCursor<unknown>, values?: readonly unknown[]) => {
      if (typeof text !== "string") return client.query(text as never);
      const name = values !== undefined && values.length > 0 && outsideTransaction(client) ? nameFor(text) : undefined;
      if (name === undefined) return client.query(text, values as unknown[]);
      return runNamed(client, name, text, values as unknown[]);
    };
    return { query: query as unknown as PostgresPoolClient["query"], release: () => client.release() };
  };

  /** Runs a named statement outside a transaction; a refusal for a stale row type renames the text and runs it again. */
  async function runNamed(client: pg.PoolClient, name: string, text: string, values: unknown[]) {
    try {
      return await client.query({ name, text, values });
    } catch (error) {
      if (!staleRowType(error)) throw error;
      // Another connection may have given the text its new name already.
      const current = names.get(text);
      const renamed = current === name || current === undefined ? rename(text) : current;
      return client.query({ name: renamed, text, values });
    }
  }

  return {
    async connect() {
      const client = await pool.connect();
      let connection = wrapped.get(client);
      if (!connection) {
        connection = wrap(client);
        wrapped.set(client, connection);
      }
      return connection;
    },
    end: () => pool.end(),
  };
}

/** pg's transaction status of the connection ("I": idle, outside a transaction), as its last ReadyForQuery said. */
function outsideTransaction(client: pg.PoolClient): boolean {
  return (client as unknown as TransactionStatus).getTransactionStatus() === "I";
}

/** pg has it since 8.12; its type definitions do not list it yet. */
interface TransactionStatus {
  getTransactionStatus(): "I" | "T" | "E" | null;
}

/** The server's refusal of a prepared statement whose tables changed the rows it answers. */
function staleRowType(error: unknown): boolean {
  const { code, routine } = error as { code?: string; routine?: string };
  return code === "0A000" && routine === "RevalidateCachedQuery";
}
