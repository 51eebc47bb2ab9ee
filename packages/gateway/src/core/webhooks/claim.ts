// Claiming due deliveries: an UPDATE that leases them to this worker and counts the attempt (two, when a claim passes
// over endpoints and the first does not find enough). On PostgreSQL the candidate rows are locked with FOR UPDATE
// SKIP LOCKED so that workers on several nodes never take the same row; on SQLite each statement is atomic by itself. A lease that runs out (the worker died) makes the row due again.
import { type Compilable, type Kysely, type RawBuilder, sql } from "kysely";
import type { StoreKind } from "../../store/database.ts";
import { precompile } from "../../store/precompiled.ts";
import type { Database, WebhookDeliveriesTable } from "../../store/schema.ts";

export type ClaimDueDeliveries = (input: {
  now: number;
  leaseMs: number;
  limit: number;
  /** Endpoints whose deliveries are not taken (this node holds its share of them already); none by default. */
  excludedEndpoints?: readonly string[];
}) => Promise<WebhookDeliveriesTable[]>;

/**
 * Due rows a claim that passes over endpoints reads in due order, at most, before it walks the pending rows endpoint
 * by endpoint instead.
 */
export const claimWindow = 1_000;

/**
 * The claim of one store, its statements compiled once per count of excluded endpoints (the worker claims for every
 * batch). The exclusion is a filter applied before the limit and, on PostgreSQL, before the rows are locked: a row
 * skipped because another node locks it does not take the place of one that could be claimed.
 *
 * Without an excluded endpoint, the claim reads the store's index of due deliveries from the oldest. With some, it
 * reads at most `window` rows of that index (claimWindowed): when they hold enough rows to claim, as when the
 * endpoints passed over have few due, that is the claim. Otherwise (a receiver that hangs with a large backlog is
 * passed over) it claims the rest walking the index of pending rows by endpoint, which reads none of the rows of an
 * endpoint passed over (claimPassingOver); the rows the first statement claimed are leased by then, and not taken
 * again. Either way, what it claims is what the first form would claim with those endpoints left out.
 */
export function claimDueDeliveries(
  db: Kysely<Database>,
  kind: StoreKind,
  window: number = claimWindow,
): ClaimDueDeliveries {
  const compile = (excluded: number) => {
    const ids = (p: (name: string) => never) =>
      Array.from({ length: excluded }, (_, index) => p(`endpoint${index}`)) as never[];
    if (excluded > 0) {
      return {
        windowed: precompile<string, Database>(db, (p) => claimWindowed(db, kind, p, ids(p))),
        passingOver: precompile<string, Database>(db, (p) => claimPassingOver(db, kind, p, ids(p))),
      };
    }
    const plain = precompile<string, Database>(db, (p) => {
      let due = db
        .selectFrom("webhook_deliveries")
        .select("id")
        // A literal, not a parameter: only then can SQLite's planner use the partial index of pending rows.
        .where("status", "=", sql.lit("pending"))
        .where("next_attempt_at", "<=", p("now"))
        .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<=", p("now"))]))
        .orderBy("next_attempt_at")
        .limit(p("limit"));
      if (kind === "postgres") due = due.forUpdate().skipLocked();
      return db
        .updateTable("webhook_deliveries")
        .set((eb) => ({ lease_until: p("leaseUntil"), attempt_count: eb("attempt_count", "+", 1) }))
        .where("id", "in", due)
        .returningAll();
    });
    return { plain };
  };
  const byExcluded = new Map<number, ReturnType<typeof compile>>();
  return async ({ now, leaseMs, limit, excludedEndpoints = [] }) => {
    let statements = byExcluded.get(excludedEndpoints.length);
    if (!statements) {
      statements = compile(excludedEndpoints.length);
      byExcluded.set(excludedEndpoints.length, statements);
    }
    const values: Record<string, unknown> = { now, leaseUntil: now + leaseMs, limit, window };
    excludedEndpoints.forEach((id, index) => {
      values[`endpoint${index}`] = id;
    });
    if ("plain" in statements) return inDueOrder((await statements.plain(values)).rows as WebhookDeliveriesTable[]);
    // The second statement passes by the rows the first claimed because they are leased: with a lease of 0 they would
    // be due still, and taken again. The walk by endpoint alone claims the same.
    if (leaseMs <= 0) return inDueOrder((await statements.passingOver(values)).rows as WebhookDeliveriesTable[]);
    const first = (await statements.windowed(values)).rows as WebhookDeliveriesTable[];
    if (first.length >= limit) return inDueOrder(first);
    const rest = await statements.passingOver({ ...values, limit: limit - first.length });
    return inDueOrder([...first, ...(rest.rows as WebhookDeliveriesTable[])]);
  };
}

/**
 * The rows claimed oldest due first, those due at the same millisecond by id: an UPDATE returns its rows in the order
 * it updated them (on PostgreSQL that of the ids' index or a hash), not the order its subquery chose them in, and the
 * worker starts them in the order given, the rows that wait a round for a slot last.
 */
function inDueOrder(rows: WebhookDeliveriesTable[]): WebhookDeliveriesTable[] {
  return rows.sort((a, b) => a.next_attempt_at - b.next_attempt_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The claim that passes over some endpoints, in the order of the index of due rows, reading at most `window` of them.
 * Exact when it takes `limit` rows: the rows after the window are due no sooner. On PostgreSQL the rows of the window
 * are matched again in the table, where they are locked and their state checked anew (a row another node claimed
 * meanwhile is not taken), the window's own rows never locked.
 */
function claimWindowed(
  db: Kysely<Database>,
  kind: StoreKind,
  p: (name: string) => never,
  excluded: readonly never[],
): Compilable {
  const scanned = sql`select id, endpoint_id, next_attempt_at, lease_until from webhook_deliveries
      where status = 'pending' and next_attempt_at <= ${p("now")}
      order by next_attempt_at
      limit ${p("window")}`;
  const eligible = (table: string) => {
    const column = (name: string) => sql.ref(`${table}.${name}`);
    return sql`${column("endpoint_id")} not in (${sql.join(excluded)})
        and (${column("lease_until")} is null or ${column("lease_until")} <= ${p("now")})`;
  };
  const due =
    kind === "postgres"
      ? sql`select claimable.id from (${scanned}) as scanned
          join webhook_deliveries as claimable on claimable.id = scanned.id
          where ${eligible("scanned")} and ${eligible("claimable")}
            and claimable.status = 'pending' and claimable.next_attempt_at <= ${p("now")}
          order by scanned.next_attempt_at
          limit ${p("limit")}
          for update of claimable skip locked`
      : sql`select scanned.id from (${scanned}) as scanned
          where ${eligible("scanned")}
          order by scanned.next_attempt_at
          limit ${p("limit")}`;
  const claimed = kind === "postgres" ? sql`id = any(array(${due}))` : sql`id in (${due})`;
  const statement = sql`update webhook_deliveries
    set lease_until = ${p("leaseUntil")}, attempt_count = attempt_count + 1
    where ${claimed}
    returning *`;
  return { compile: () => statement.compile(db) };
}

/**
 * The claim that passes over some endpoints, in three steps, each a seek per endpoint in the index of pending rows by
 * endpoint, then due time and id:
 *
 * - the endpoints with pending deliveries, by a skip scan of that index (each step seeks past the endpoint before),
 *   not from the endpoints' table: a delivery whose endpoint was deleted meanwhile is still claimed, and ended
 *   (endWithoutEndpoint);
 * - of those not excluded, the `limit` whose oldest due row is oldest: the rows to claim are all theirs (an endpoint
 *   whose oldest due row comes after `limit` others' has none of the `limit` oldest);
 * - of each of these, its oldest due rows, up to the limit, and of all those the oldest up to the limit. On
 *   PostgreSQL the rows are locked there, skipping rows another node locks, so that such a row does not take the
 *   place of one that could be claimed. The second step locks nothing, so that only rows claimed are locked: an
 *   oldest row that another node is claiming at that moment still counts for its endpoint, which may then give fewer
 *   rows than the endpoint it kept out would have (with more endpoints due than the limit, and claims at once only).
 *
 * A claim thus reads, beside a seek per endpoint with pending deliveries and the rows leases hold, at most `limit`
 * rows of each of `limit` endpoints, and none of an endpoint excluded. Rows due at the same millisecond are taken in the order of their ids. SQLite has
 * no LATERAL: the rows of each endpoint are a correlated subquery in a join's condition.
 */
function claimPassingOver(
  db: Kysely<Database>,
  kind: StoreKind,
  p: (name: string) => never,
  excluded: readonly never[],
): Compilable {
  const postgres = kind === "postgres";
  const endpoints = sql`pending_endpoints (endpoint_id) as (
      select (select min(endpoint_id) from webhook_deliveries where status = 'pending')
      union all
      select (
        select min(next.endpoint_id) from webhook_deliveries as next
        where next.status = 'pending' and next.endpoint_id > pending_endpoints.endpoint_id
      )
      from pending_endpoints where pending_endpoints.endpoint_id is not null
    )`;
  /** An endpoint's oldest due rows, up to `limit`, that no lease holds. */
  const dueOf = (endpoint: RawBuilder<unknown>, limit: unknown) => {
    // On PostgreSQL the due time's bound is a row comparison that leads with the endpoint: only the index by endpoint
    // serves it. Given `next_attempt_at <= now`, the planner may walk the index of due rows instead and filter on the
    // endpoint, as if each endpoint's rows were spread evenly over it: every due row older than the endpoint's own is
    // read, a passed-over backlog among them. SQLite's planner takes the index by endpoint for the plain bound, not
    // for the row comparison.
    const bound = postgres
      ? sql`(own.endpoint_id, own.next_attempt_at) <= (${endpoint}, ${p("now")})`
      : sql`own.next_attempt_at <= ${p("now")}`;
    // PostgreSQL's lateral subquery gives the order's columns; SQLite's, in an IN, the id only.
    return sql`select ${postgres ? sql`own.id, own.next_attempt_at` : sql`own.id`} from webhook_deliveries as own
      where own.status = 'pending' and own.endpoint_id = ${endpoint} and ${bound}
        and (own.lease_until is null or own.lease_until <= ${p("now")})
      order by own.next_attempt_at, own.id
      limit ${limit}`;
  };
  /** `from` joined to the oldest due rows, up to `limit`, of each of its endpoints, as `due` (locked, if `lock`). */
  const walk = (from: string, limit: unknown, lock: boolean) => {
    const endpoint = sql.ref(`${from}.endpoint_id`);
    return postgres
      ? sql`${sql.table(from)} cross join lateral (${dueOf(endpoint, limit)}${lock ? sql` for update skip locked` : sql``}) as due`
      : sql`${sql.table(from)} join webhook_deliveries as due on due.id in (${dueOf(endpoint, limit)})`;
  };
  const heads = sql`heads (endpoint_id) as (
      select pending_endpoints.endpoint_id from ${walk("pending_endpoints", 1, false)}
      where pending_endpoints.endpoint_id is not null
        and pending_endpoints.endpoint_id not in (${sql.join(excluded)})
      order by due.next_attempt_at, due.id
      limit ${p("limit")}
    )`;
  const due = sql`select due.id from ${walk("heads", p("limit"), true)}
      order by due.next_attempt_at, due.id
      limit ${p("limit")}`;
  // On PostgreSQL the ids claimed are an array, computed once: each row is then found by its key. As `id in (…)`, the
  // planner may join the subquery's rows, which it cannot count, against a scan of the whole table.
  const claimed = postgres ? sql`id = any(array(${due}))` : sql`id in (${due})`;
  const statement = sql`with recursive ${endpoints}, ${heads}
    update webhook_deliveries
    set lease_until = ${p("leaseUntil")}, attempt_count = attempt_count + 1
    where ${claimed}
    returning *`;
  return { compile: () => statement.compile(db) };
}

/**
 * SQLite has one worker: leases left by a previous process that was killed are void at start. Their attempts were
 * never recorded (an outcome clears the lease in the same transaction), so they are not counted either: the attempt is
 * made again under the same number, and the retry schedule loses no step.
 */
export async function releaseLeftoverLeases(db: Kysely<Database>): Promise<void> {
  await db
    .updateTable("webhook_deliveries")
    .set((eb) => ({ lease_until: null, attempt_count: eb("attempt_count", "-", 1) }))
    .where("status", "=", "pending")
    .where("lease_until", "is not", null)
    .execute();
}

/** Hands claimed but unsent deliveries back (the worker is stopping): due again at once, attempt not counted. */
export async function releaseClaims(
  db: Kysely<Database>,
  deliveries: readonly WebhookDeliveriesTable[],
): Promise<void> {
  const byAttempt = new Map<number, string[]>();
  for (const delivery of deliveries) {
    byAttempt.set(delivery.attempt_count, [...(byAttempt.get(delivery.attempt_count) ?? []), delivery.id]);
  }
  for (const [attempt, ids] of byAttempt) {
    await db
      .updateTable("webhook_deliveries")
      .set((eb) => ({ lease_until: null, attempt_count: eb("attempt_count", "-", 1) }))
      .where("id", "in", ids)
      .where("attempt_count", "=", attempt)
      .where("status", "=", "pending")
      .execute();
  }
}

/** Ends a claimed delivery whose endpoint is gone, without an attempt (a deletion normally ended it already). */
export async function endWithoutEndpoint(db: Kysely<Database>, delivery: WebhookDeliveriesTable, now: number) {
  await db
    .updateTable("webhook_deliveries")
    .set({ status: "failed", completed_at: now, lease_until: null, last_error: "the endpoint was deleted" })
    .where("id", "=", delivery.id)
    .where("attempt_count", "=", delivery.attempt_count)
    .where("status", "=", "pending")
    .execute();
}
