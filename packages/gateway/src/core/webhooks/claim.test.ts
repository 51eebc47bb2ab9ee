// The claim of due deliveries on each store: what it takes (the oldest due rows of the endpoints not passed over, up to
// the limit, each leased and its attempt counted), and what it reads when it passes over an endpoint with a large due
// backlog: at most a window of that endpoint's rows, told by the statements' plans, not by their time.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SQLite from "better-sqlite3";
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { testStore } from "../../../test/harness.ts";
import { openStore } from "../../store/database.ts";
import type { Database, WebhookDeliveriesTable } from "../../store/schema.ts";
import { randomBase62 } from "../ids.ts";
import { claimDueDeliveries, claimWindow } from "./claim.ts";

const kind = testStore();
const postgresUrl = process.env.GATEWAY_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const now = 1_000_000;
const leaseMs = 5_000;

let db: Kysely<Database>;
/** Every statement run, as compiled: the claim's own is explained. */
const statements: CompiledQuery[] = [];
let cleanUp: () => Promise<void>;

beforeAll(async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "claim-test-"));
  const schema = `t_${randomBase62(12).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  if (kind === "postgres") {
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
  }
  const store = openStore({ dataDir, ...(kind === "postgres" && { databaseUrl: postgresUrl, schema }) });
  await store.migrate();
  const file = store.location;
  await store.close();
  const log = (event: { query: CompiledQuery }) => {
    statements.push(event.query);
  };
  db =
    kind === "postgres"
      ? new Kysely<Database>({
          dialect: new PostgresDialect({
            pool: new pg.Pool({ connectionString: postgresUrl, max: 1, options: `-c search_path=${schema}` }),
          }),
          log,
        })
      : new Kysely<Database>({ dialect: new SqliteDialect({ database: new SQLite(file) }), log });
  cleanUp = async () => {
    await db.destroy();
    if (kind === "postgres") {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
});
afterAll(async () => cleanUp?.());
beforeEach(async () => {
  await db.deleteFrom("webhook_deliveries").execute();
});

function row(
  id: string,
  endpointId: string,
  nextAttemptAt: number,
  extra: Partial<WebhookDeliveriesTable> = {},
): WebhookDeliveriesTable {
  return {
    id,
    event_id: `evt_${id}`,
    account_id: endpointId,
    endpoint_id: endpointId,
    status: "pending",
    attempt_count: 0,
    next_attempt_at: nextAttemptAt,
    lease_until: null,
    created_at: nextAttemptAt,
    deadline_at: now + 86_400_000,
    completed_at: null,
    last_status_code: null,
    last_error: null,
    ...extra,
  };
}

async function insert(rows: readonly WebhookDeliveriesTable[]) {
  for (let done = 0; done < rows.length; done += 500) {
    await db
      .insertInto("webhook_deliveries")
      .values(rows.slice(done, done + 500))
      .execute();
  }
}

/** What a claim must take: rows due and not leased, of endpoints not excluded, oldest first, up to the limit. */
function expected(rows: readonly WebhookDeliveriesTable[], excluded: readonly string[], limit: number): string[] {
  return rows
    .filter(
      (r) =>
        r.status === "pending" &&
        r.next_attempt_at <= now &&
        (r.lease_until === null || r.lease_until <= now) &&
        !excluded.includes(r.endpoint_id),
    )
    .sort((a, b) => a.next_attempt_at - b.next_attempt_at)
    .slice(0, limit)
    .map((r) => r.id);
}

/** As `expected`, rows due at the same time taken in the order of their ids. */
function expectedInOrder(rows: readonly WebhookDeliveriesTable[], excluded: readonly string[], limit: number) {
  const sorted = [...rows].sort((a, b) => a.next_attempt_at - b.next_attempt_at || (a.id < b.id ? -1 : 1));
  return expected(sorted, excluded, limit);
}

/** Ids in time order: rows due at the same time (none below) would be taken in the order of their ids. */
const id = (n: number) => `dlv_${String(n).padStart(6, "0")}`;

describe("a claim of due deliveries", () => {
  // Endpoint a is passed over, with the oldest rows; b and c interleave, with a row leased, one whose lease ran out,
  // one ended and one not yet due; d has one row older than theirs.
  const rows = [
    ...Array.from({ length: 40 }, (_, n) => row(id(n), "ep_a", 100 + n)),
    row(id(100), "ep_d", 150),
    ...Array.from({ length: 10 }, (_, n) => row(id(200 + n), "ep_b", 300 + 3 * n)),
    ...Array.from({ length: 10 }, (_, n) => row(id(300 + n), "ep_c", 301 + 3 * n)),
    row(id(400), "ep_b", 299, { lease_until: now + 1 }),
    row(id(401), "ep_c", 298, { lease_until: now - 1, attempt_count: 1 }),
    row(id(402), "ep_c", 297, { status: "failed", completed_at: 1 }),
    row(id(403), "ep_b", now + 1),
  ];

  // Windows: the default (every due row in it), a few rows (the rest walked by endpoint), none (all walked by endpoint).
  const windows = [claimWindow, 3, 0];
  it.each(
    windows.flatMap((window) => [
      { window, excluded: [], limit: 5 },
      { window, excluded: ["ep_a"], limit: 5 },
      { window, excluded: ["ep_a"], limit: 32 },
      { window, excluded: ["ep_a", "ep_c"], limit: 4 },
      { window, excluded: ["ep_b", "ep_c", "ep_d"], limit: 3 },
      { window, excluded: ["ep_zz"], limit: 3 },
    ]),
  )(
    "takes the oldest due rows of the endpoints not passed over ($excluded, limit $limit, window $window)",
    async ({ window, excluded, limit }) => {
      await insert(rows);
      const claim = claimDueDeliveries(db, kind, window);
      const claimed = await claim({ now, leaseMs, limit, excludedEndpoints: excluded });
      const ids = expected(rows, excluded, limit);
      expect(claimed.map((r) => r.id).sort()).toEqual([...ids].sort());
      const before = new Map(rows.map((r) => [r.id, r]));
      for (const taken of claimed) {
        expect(Number(taken.lease_until)).toBe(now + leaseMs);
        expect(taken.attempt_count).toBe((before.get(taken.id)?.attempt_count ?? 0) + 1);
      }
      // Leased now: the same claim again takes the next ones.
      const again = await claim({ now, leaseMs, limit, excludedEndpoints: excluded });
      const leased = new Set(ids);
      const rest = rows.filter((r) => !leased.has(r.id));
      expect(again.map((r) => r.id).sort()).toEqual(expected(rest, excluded, limit).sort());
    },
  );

  it.each(windows)(
    "takes the oldest due rows among more endpoints than the limit, rows due at the same time included (window %i)",
    async (window) => {
      // 12 endpoints, due times drawn from a narrow range (many alike), some rows leased, ended or not yet due; ids in
      // the order of insertion, which orders rows due at the same time on either store.
      let seed = 7;
      const random = (below: number) => {
        seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
        return seed % below;
      };
      const many = Array.from({ length: 400 }, (_, n) => {
        const pick = random(20);
        return row(id(n), `ep_${random(12)}`, now - 60 + random(60) + (pick === 0 ? 100 : 0), {
          ...(pick === 1 && { lease_until: now + 10 }),
          ...(pick === 2 && { lease_until: now }),
          ...(pick === 3 && { status: "succeeded" as const, completed_at: now }),
        });
      });
      await insert(many);
      const claim = claimDueDeliveries(db, kind, window);
      const cases = [
        { excluded: ["ep_0"], limit: 3 },
        { excluded: ["ep_1", "ep_2", "ep_3"], limit: 7 },
        { excluded: ["ep_4"], limit: 32 },
        { excluded: ["ep_5", "ep_6"], limit: 1 },
      ];
      let rest = many;
      for (const { excluded, limit } of cases) {
        const ids = expectedInOrder(rest, excluded, limit);
        const claimed = await claim({ now, leaseMs, limit, excludedEndpoints: excluded });
        expect(claimed.map((r) => r.id).sort()).toEqual([...ids].sort());
        const taken = new Set(ids);
        rest = rest.filter((r) => !taken.has(r.id));
      }
    },
  );

  it("reads at most its window of the rows of an endpoint it passes over, however many are due", async () => {
    // Three windows' worth of rows of the passed-over endpoint, all older than the 9 due to three others.
    const backlog = Array.from({ length: 3 * claimWindow }, (_, n) => row(id(n), "ep_busy", 100 + n));
    const others = ["ep_1", "ep_2", "ep_3"].flatMap((endpointId, e) =>
      Array.from({ length: 3 }, (_, n) => row(id(10_000 + 10 * e + n), endpointId, 5_000 + 10 * n + e)),
    );
    const load = async () => {
      await db.deleteFrom("webhook_deliveries").execute();
      await insert([...backlog, ...others]);
      await sql`analyze`.execute(db);
    };
    await load();
    const claim = claimDueDeliveries(db, kind);
    statements.length = 0;
    const claimed = await claim({ now, leaseMs, limit: 32, excludedEndpoints: ["ep_busy"] });
    expect(claimed.map((r) => r.id).sort()).toEqual(others.map((r) => r.id).sort());
    const run = statements.filter((statement) => /^\s*(with|update)\b/i.test(statement.sql));

    if (kind === "sqlite") {
      const plans: string[][] = [];
      for (const statement of run) {
        const plan = await db.executeQuery<{ detail: string }>(
          CompiledQuery.raw(`EXPLAIN QUERY PLAN ${statement.sql}`, [...statement.parameters]),
        );
        plans.push(plan.rows.map((step) => step.detail));
      }
      // The window in due order found nothing to claim (it holds the backlog's oldest rows only); the walk by
      // endpoint claimed the rest.
      const details = plans.at(-1) ?? [];
      // The walk reads due rows per endpoint, from the index by endpoint and due time, bounded by both; never from the
      // index of due rows (the passed-over endpoint's are the oldest there), nor by a scan of the table.
      expect(
        details.filter((detail) => /webhook_deliveries_due\b|^SCAN (webhook_deliveries|own|due)\b/.test(detail)),
      ).toEqual([]);
      expect(details).toContainEqual(
        expect.stringMatching(/USING INDEX webhook_deliveries_endpoint_due \(endpoint_id=\? AND next_attempt_at<\?\)/),
      );
      expect(plans).toHaveLength(2);
    } else {
      // Both statements again, on the rows as they were, in a transaction rolled back.
      await load();
      const read = await rowsReadOnPostgres(run);
      // The window (1,000 rows), then seeks from endpoint to endpoint (4, and one past the last), the oldest due row of
      // each other endpoint (3), their 9 due rows and the 9 claimed: 1,035 in all, the rest of the backlog not read.
      expect(read).toBeLessThan(claimWindow + 50);
      expect(run).toHaveLength(2);
    }
  });
});

interface PlanNode {
  "Relation Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: PlanNode[];
}

/** Rows the statements' scans of webhook_deliveries returned or filtered out (EXPLAIN ANALYZE, rolled back). */
async function rowsReadOnPostgres(run: readonly CompiledQuery[]): Promise<number> {
  const count = (node: PlanNode): number => {
    let rows = 0;
    if (node["Relation Name"] === "webhook_deliveries") {
      const perLoop =
        (node["Actual Rows"] ?? 0) +
        (node["Rows Removed by Filter"] ?? 0) +
        (node["Rows Removed by Index Recheck"] ?? 0);
      rows += perLoop * (node["Actual Loops"] ?? 1);
    }
    for (const child of node.Plans ?? []) rows += count(child);
    return rows;
  };
  let read = 0;
  await db
    .transaction()
    .execute(async (trx) => {
      for (const statement of run) {
        const { rows } = await trx.executeQuery<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(
          CompiledQuery.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.sql}`, [...statement.parameters]),
        );
        const [explained] = rows[0]?.["QUERY PLAN"] ?? [];
        if (!explained) throw new Error("EXPLAIN gave no plan");
        read += count(explained.Plan);
      }
      throw new RolledBack();
    })
    .catch((err: unknown) => {
      if (!(err instanceof RolledBack)) throw err;
    });
  return read;
}

class RolledBack extends Error {}

describe("the order of a claim's rows", () => {
  // Ids that sort against due order: the store's own order (an index of ids, a hash) is not the due order.
  const rows = [
    ...Array.from({ length: 6 }, (_, n) => row(`dlv_z${n}`, "ep_a", 100 + n)),
    ...Array.from({ length: 6 }, (_, n) => row(`dlv_y${n}`, "ep_b", 200 - n)),
    row("dlv_a0", "ep_c", 150),
    row("dlv_b0", "ep_c", 150),
  ];
  it.each([
    { excluded: [], window: claimWindow },
    { excluded: ["ep_c"], window: claimWindow },
    { excluded: ["ep_c"], window: 0 },
  ])(
    "gives the rows claimed oldest due first, ties by id (excluded $excluded, window $window)",
    async ({ excluded, window }) => {
      await insert(rows);
      const claimed = await claimDueDeliveries(
        db,
        kind,
        window,
      )({ now, leaseMs, limit: 14, excludedEndpoints: excluded });
      expect(claimed.map((r) => r.id)).toEqual(expectedInOrder(rows, excluded, 14));
    },
  );
});
