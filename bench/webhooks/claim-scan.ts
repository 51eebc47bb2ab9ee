// bench/webhooks/claim-scan: what one claim of the delivery worker costs when it passes over an endpoint with a large
// due backlog (the endpoint holds its share on this node, so the claim excludes it). The claim statement the worker
// runs (core/webhooks/claim.ts), one endpoint excluded, a limit of 32 (the default share's two rounds), against a few
// due rows of three other endpoints (or as many as asked); first with the excluded endpoint's backlog empty (the baseline), then with N due
// rows, all older than the others'. Prints the median time of the statement, the ratio, and on PostgreSQL the
// statement's EXPLAIN ANALYZE (rows read from webhook_deliveries, execution time). PostgreSQL commits without waiting
// for its log's flush (synchronous_commit off), which would otherwise be most of each claim's time.
// Run alone: node --import tsx bench/webhooks/claim-scan.ts [backlog rows] [claims per case] [other endpoints]
// [due rows per other endpoint] (100000, 200, 3 and 5 by default).
import SQLite from "better-sqlite3";
import { CompiledQuery, Kysely, type LogEvent, PostgresDialect, SqliteDialect, sql } from "kysely";
import pg from "pg";
import { claimDueDeliveries } from "../../packages/gateway/src/core/webhooks/claim.ts";
import { openStore } from "../../packages/gateway/src/store/database.ts";
import type { Database } from "../../packages/gateway/src/store/schema.ts";
import { median, printTable, round } from "../shared/load.ts";
import { type BenchStore, benchPostgresUrl, benchStorePlace, benchStores } from "../shared/stores.ts";

const backlogRows = Number(process.argv[2] ?? 100_000);
const claims = Number(process.argv[3] ?? 200);
const limit = 32;
const others = Array.from({ length: Number(process.argv[4] ?? 3) }, (_, index) => `ep_other_${index}`);
const rowsPerOther = Number(process.argv[5] ?? 5);
const start = Date.parse("2026-11-27T12:00:00.000Z");

interface Case {
  store: BenchStore;
  backlog: number;
  medianMs: number;
  claimed: number;
  explain?: { rowsRead: number; executionMs: number };
}

/** A fresh store (a temporary SQLite file, or a PostgreSQL schema of its own), migrated; a Kysely on it that logs. */
async function openBenchStore(kind: BenchStore) {
  const place = await benchStorePlace(kind, "claim-scan");
  const store = openStore({ dataDir: place.dataDir, ...(place.postgres && { ...place.postgres, poolSize: 2 }) });
  await store.migrate();
  const sqliteFile = kind === "sqlite" ? store.location : undefined;
  await store.close();
  // Kysely's log hands over each statement as compiled: what the claim runs is explained as is.
  const statements: CompiledQuery[] = [];
  const log = (event: LogEvent) => {
    statements.push(event.query);
  };
  const db =
    kind === "postgres"
      ? new Kysely<Database>({
          dialect: new PostgresDialect({
            pool: new pg.Pool({
              connectionString: benchPostgresUrl,
              max: 1,
              options: `-c search_path=${place.postgres?.schema} -c synchronous_commit=off`,
            }),
          }),
          log,
        })
      : new Kysely<Database>({ dialect: new SqliteDialect({ database: new SQLite(sqliteFile as string) }), log });
  return {
    db,
    statements,
    async close() {
      await db.destroy();
      await place.remove();
    },
  };
}

function delivery(id: string, endpointId: string, nextAttemptAt: number) {
  return {
    id,
    event_id: `evt_${id}`,
    account_id: endpointId,
    endpoint_id: endpointId,
    status: "pending" as const,
    attempt_count: 0,
    next_attempt_at: nextAttemptAt,
    lease_until: null,
    created_at: nextAttemptAt,
    deadline_at: start + 86_400_000,
    completed_at: null,
    last_status_code: null,
    last_error: null,
  };
}

async function insert(db: Kysely<Database>, rows: ReturnType<typeof delivery>[]) {
  for (let done = 0; done < rows.length; done += 1_000) {
    await db
      .insertInto("webhook_deliveries")
      .values(rows.slice(done, done + 1_000))
      .execute();
  }
}

async function measureCase(kind: BenchStore, backlog: number): Promise<Case> {
  const target = await openBenchStore(kind);
  try {
    const { db } = target;
    // The excluded endpoint's backlog is older than every other due row: a claim in due order meets it first.
    const rows = Array.from({ length: backlog }, (_, index) =>
      delivery(`dlv_busy_${String(index).padStart(7, "0")}`, "ep_busy", start - 10_000_000 + index),
    );
    for (const endpointId of others) {
      for (let index = 0; index < rowsPerOther; index++) {
        rows.push(delivery(`dlv_${endpointId}_${index}`, endpointId, start - 1_000_000 + index));
      }
    }
    await insert(db, rows);
    if (kind === "postgres") await sql`VACUUM ANALYZE webhook_deliveries`.execute(db);
    else await sql`ANALYZE`.execute(db);

    const claim = claimDueDeliveries(db, kind);
    // A lease of 1 ms and a clock 2 ms further at each claim: the rows claimed are due again at the next one. (With a
    // lease of 0 the claim would skip its window in due order, which takes the rows it leases for a while.)
    let now = start;
    const later = () => {
      now += 2;
      return now;
    };
    const run = () => claim({ now: later(), leaseMs: 1, limit, excludedEndpoints: ["ep_busy"] });
    for (let index = 0; index < 20; index++) await run();
    const times: number[] = [];
    let claimed = 0;
    for (let index = 0; index < claims; index++) {
      const began = performance.now();
      claimed = (await run()).length;
      times.push(performance.now() - began);
    }
    const result: Case = { store: kind, backlog, medianMs: median(times), claimed };
    // The statements of one claim (one, or the window in due order and then the walk by endpoint), taken from a claim
    // rolled back, then explained in order in another transaction rolled back: each sees what it saw in the claim.
    target.statements.length = 0;
    await rolledBack(db, (trx) =>
      claimDueDeliveries(trx, kind)({ now: later(), leaseMs: 1, limit, excludedEndpoints: ["ep_busy"] }),
    );
    const statements = target.statements.filter((statement) => /^\s*(with|update)\b/i.test(statement.sql));
    if (kind === "postgres") result.explain = await explainAnalyze(db, statements);
    if (process.env.BENCH_PRINT_PLANS) await printPlans(db, kind, backlog, statements);
    return result;
  } finally {
    await target.close();
  }
}

interface PlanNode {
  "Relation Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  Plans?: PlanNode[];
}

/** Rows the plan's scans of webhook_deliveries returned or filtered out, over all loops. */
export function rowsRead(node: PlanNode): number {
  let rows = 0;
  if (node["Relation Name"] === "webhook_deliveries") {
    const loops = node["Actual Loops"] ?? 1;
    rows += ((node["Actual Rows"] ?? 0) + (node["Rows Removed by Filter"] ?? 0)) * loops;
  }
  for (const child of node.Plans ?? []) rows += rowsRead(child);
  return rows;
}

/** EXPLAIN ANALYZE of the claim's statements as they ran, in a transaction rolled back: rows read, time, summed. */
async function explainAnalyze(db: Kysely<Database>, statements: readonly CompiledQuery[]) {
  const explained = { rowsRead: 0, executionMs: 0 };
  await rolledBack(db, async (trx) => {
    for (const statement of statements) {
      const { rows } = await trx.executeQuery<{ "QUERY PLAN": [{ Plan: PlanNode; "Execution Time": number }] }>(
        CompiledQuery.raw(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${statement.sql}`, [...statement.parameters]),
      );
      const [plan] = rows[0]?.["QUERY PLAN"] ?? [];
      if (!plan) throw new Error("no plan");
      explained.rowsRead += rowsRead(plan.Plan);
      explained.executionMs += plan["Execution Time"];
    }
  });
  return explained;
}

/** Runs `work` in a transaction, then rolls it back. */
async function rolledBack(db: Kysely<Database>, work: (trx: Kysely<Database>) => Promise<unknown>) {
  await db
    .transaction()
    .execute(async (trx) => {
      await work(trx);
      throw new RollBack();
    })
    .catch((err: unknown) => {
      if (!(err instanceof RollBack)) throw err;
    });
}

class RollBack extends Error {}

/** BENCH_PRINT_PLANS=1: the claim's plans, as EXPLAIN ANALYZE (rolled back) or EXPLAIN QUERY PLAN gives them. */
async function printPlans(
  db: Kysely<Database>,
  kind: BenchStore,
  backlog: number,
  statements: readonly CompiledQuery[],
) {
  const lines: string[] = [];
  await rolledBack(db, async (trx) => {
    for (const statement of statements) {
      const prefix = kind === "postgres" ? "EXPLAIN (ANALYZE, COSTS OFF)" : "EXPLAIN QUERY PLAN";
      const { rows } = await trx.executeQuery<Record<string, unknown>>(
        CompiledQuery.raw(`${prefix} ${statement.sql}`, [...statement.parameters]),
      );
      for (const row of rows) lines.push(String(kind === "postgres" ? row["QUERY PLAN"] : row.detail));
      lines.push("");
    }
  });
  console.log(`\n${kind}, backlog ${backlog}:\n${lines.join("\n")}`);
}
export async function run(): Promise<void> {
  const rows: Record<string, string | number>[] = [];
  for (const kind of benchStores()) {
    const empty = await measureCase(kind, 0);
    const full = await measureCase(kind, backlogRows);
    rows.push({
      store: kind,
      "claimed a claim": `${empty.claimed} / ${full.claimed}`,
      "median ms, empty backlog": round(empty.medianMs, 3),
      [`median ms, ${backlogRows} rows`]: round(full.medianMs, 3),
      ratio: round(full.medianMs / empty.medianMs, 2),
      "EXPLAIN ANALYZE rows read / ms": empty.explain
        ? `${empty.explain.rowsRead} / ${round(empty.explain.executionMs, 3)} → ${full.explain?.rowsRead} / ${round(full.explain?.executionMs ?? 0, 3)}`
        : "",
    });
  }
  printTable(
    `one claim, limit ${limit}, one endpoint excluded, ${others.length}×${rowsPerOther} rows due to others (median of ${claims})`,
    rows,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
