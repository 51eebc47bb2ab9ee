// Claiming due deliveries: one UPDATE that leases them to this worker and counts the attempt. On PostgreSQL the
// candidate rows are locked with FOR UPDATE SKIP LOCKED so that workers on several nodes never take the same row;
// on SQLite the statement is atomic by itself. A lease that runs out (the worker died) makes the row due again.
import { type Kysely, sql } from "kysely";
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
 * The claim statement of one store, compiled once per count of excluded endpoints (the worker runs it for every
 * batch). The exclusion is a filter on the rows scanned, applied before the limit and, on PostgreSQL, before the rows
 * are locked: a row skipped because another node locks it does not take the place of one that could be claimed.
 */
export function claimDueDeliveries(db: Kysely<Database>, kind: StoreKind): ClaimDueDeliveries {
  const compile = (excluded: number) =>
    precompile<string, Database>(db, (p) => {
      let due = db
        .selectFrom("webhook_deliveries")
        .select("id")
        // A literal, not a parameter: only then can SQLite's planner use the partial index of pending rows.
        .where("status", "=", sql.lit("pending"))
        .where("next_attempt_at", "<=", p("now"))
        .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<=", p("now"))]));
      if (excluded > 0) {
        const ids = Array.from({ length: excluded }, (_, index) => p(`endpoint${index}`));
        due = due.where("endpoint_id", "not in", ids);
      }
      due = due.orderBy("next_attempt_at").limit(p("limit"));
      if (kind === "postgres") due = due.forUpdate().skipLocked();
      return db
        .updateTable("webhook_deliveries")
        .set((eb) => ({ lease_until: p("leaseUntil"), attempt_count: eb("attempt_count", "+", 1) }))
        .where("id", "in", due)
        .returningAll();
    });
  const byExcluded = new Map<number, ReturnType<typeof compile>>();
  return async ({ now, leaseMs, limit, excludedEndpoints = [] }) => {
    let statement = byExcluded.get(excludedEndpoints.length);
    if (!statement) {
      statement = compile(excludedEndpoints.length);
      byExcluded.set(excludedEndpoints.length, statement);
    }
    const values: Record<string, unknown> = { now, leaseUntil: now + leaseMs, limit };
    excludedEndpoints.forEach((id, index) => {
      values[`endpoint${index}`] = id;
    });
    return (await statement(values)).rows as WebhookDeliveriesTable[];
  };
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
