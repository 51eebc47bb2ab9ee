// Writes the outcome of each attempt: its row in the attempt log and the delivery's next state (succeeded, pending
// with the next retry time, or failed). Outcomes that finish together are written in one transaction (group commit),
// which keeps the store's cost per delivery low under load.
import { type Compilable, CompiledQuery, type Kysely, type Transaction } from "kysely";
import type { Database, WebhookAttemptsTable, WebhookDeliveriesTable } from "../../store/schema.ts";
import type { Clock } from "../clock.ts";
import { nextAttemptAt } from "./schedule.ts";
import type { AttemptOutcome } from "./sender.ts";

export interface Completion {
  delivery: WebhookDeliveriesTable;
  url: string;
  attemptedAt: number;
  outcome: AttemptOutcome;
  /** No retry whatever the schedule says (the endpoint is gone). */
  final?: boolean;
}

const maxBatch = 200;

/**
 * The receiver's text as the store can hold it: PostgreSQL refuses U+0000 in a text column, and a receiver may
 * answer any bytes. Each NUL becomes U+FFFD, as bytes that are not UTF-8 already do when the body is decoded.
 */
export function storableText(text: string | null): string | null {
  return text?.includes("\u0000") ? text.replaceAll("\u0000", "\uFFFD") : text;
}

/**
 * An outcome whose row could not be written as it was (a value the store refused): its state change is written
 * without the receiver's text, rather than the delivery left leased, and sent again when the lease runs out, for ever.
 */
function withoutDetails(completion: Completion): Completion {
  const { outcome } = completion;
  const error = outcome.ok ? null : "the attempt failed; what the receiver answered could not be stored";
  return { ...completion, outcome: { ...outcome, error, responseBody: null } };
}

/** A query compiled once, with numbered slots for the values of each run (Kysely builds and compiles on every call). */
interface Compiled {
  sql: string;
  slots: ({ index: number } | { constant: unknown })[];
}

const marker = "\u0000slot:";

function compileOnce(build: (slot: (index: number) => never) => Compilable): Compiled {
  const compiled = build((index) => `${marker}${index}` as never).compile();
  const slots = compiled.parameters.map((value) =>
    typeof value === "string" && value.startsWith(marker)
      ? { index: Number(value.slice(marker.length)) }
      : { constant: value },
  );
  return { sql: compiled.sql, slots };
}

function run(trx: Transaction<Database>, query: Compiled, values: readonly unknown[]): Promise<unknown> {
  return trx.executeQuery(
    CompiledQuery.raw(
      query.sql,
      query.slots.map((slot) => ("index" in slot ? values[slot.index] : slot.constant)),
    ),
  );
}

const attemptColumns = [
  "delivery_id",
  "event_id",
  "attempt",
  "url",
  "attempted_at",
  "status_code",
  "latency_ms",
  "error",
  "response_body",
] as const;

export class AttemptLog {
  private queue: { completion: Completion; done: (error?: unknown) => void }[] = [];
  private flushing: Promise<void> | undefined;
  /** The attempt INSERT and the success UPDATE, per number of rows (a batch has at most `maxBatch`). */
  private readonly inserts = new Map<number, Compiled>();
  private readonly successes = new Map<number, Compiled>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  record(completion: Completion): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ completion, done: (error) => (error === undefined ? resolve() : reject(error)) });
      // setImmediate: the outcomes of every response read in this turn of the event loop go into one transaction.
      this.flushing ??= new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => this.flush())
        .finally(() => {
          this.flushing = undefined;
        });
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, maxBatch);
      try {
        await this.write(batch.map((entry) => entry.completion));
        for (const entry of batch) entry.done();
      } catch (error) {
        // One row that cannot be written (its attempt recorded already) fails the whole transaction: each outcome is
        // then written on its own, so that the others are kept.
        for (const entry of batch) {
          await (batch.length === 1 ? Promise.reject(error) : this.write([entry.completion]))
            .catch(() => this.write([withoutDetails(entry.completion)]))
            .then(
              () => entry.done(),
              (alone: unknown) => entry.done(alone),
            );
        }
      }
    }
  }

  private async write(completions: Completion[]): Promise<void> {
    const now = this.clock.now();
    const attempts: WebhookAttemptsTable[] = completions.map(({ delivery, url, attemptedAt, outcome }) => ({
      delivery_id: delivery.id,
      event_id: delivery.event_id,
      attempt: delivery.attempt_count,
      url,
      attempted_at: attemptedAt,
      status_code: outcome.statusCode,
      latency_ms: outcome.latencyMs,
      error: storableText(outcome.error),
      response_body: storableText(outcome.responseBody),
    }));
    // Successes (the common case) are one UPDATE per attempt number and status code; retries and failures carry
    // their own next time, one UPDATE each.
    const successes = new Map<string, { attempt: number; statusCode: number | null; ids: string[] }>();
    const others: Completion[] = [];
    for (const completion of completions) {
      const { delivery, outcome } = completion;
      if (!outcome.ok) {
        others.push(completion);
        continue;
      }
      const key = `${delivery.attempt_count}:${outcome.statusCode}`;
      const group = successes.get(key) ?? { attempt: delivery.attempt_count, statusCode: outcome.statusCode, ids: [] };
      group.ids.push(delivery.id);
      successes.set(key, group);
    }
    await this.db.transaction().execute(async (trx) => {
      await run(
        trx,
        this.insertOf(attempts.length),
        attempts.flatMap((row) => attemptColumns.map((column) => row[column])),
      );
      // attempt_count fences each write: if the lease ran out and another worker took the row, this outcome is stale
      // and changes nothing (its attempt is still logged). If the endpoint was deleted meanwhile, a failure changes
      // nothing either, and a success still makes the delivery succeeded: the receiver has the event.
      for (const group of successes.values()) {
        await run(trx, this.successOf(group.ids.length), [now, group.statusCode, group.attempt, ...group.ids]);
      }
      for (const { delivery, outcome, final } of others) {
        const next = final
          ? undefined
          : nextAttemptAt({ attempts: delivery.attempt_count, now, deadline: delivery.deadline_at });
        await trx
          .updateTable("webhook_deliveries")
          .set({
            status: next === undefined ? "failed" : "pending",
            next_attempt_at: next ?? delivery.next_attempt_at,
            lease_until: null,
            completed_at: next === undefined ? now : null,
            last_status_code: outcome.statusCode,
            last_error: storableText(outcome.error),
          })
          .where("id", "=", delivery.id)
          .where("attempt_count", "=", delivery.attempt_count)
          .where("status", "=", "pending")
          .execute();
      }
    });
  }

  private insertOf(rows: number): Compiled {
    let query = this.inserts.get(rows);
    if (!query) {
      query = compileOnce((slot) =>
        this.db
          .insertInto("webhook_attempts")
          .values(
            Array.from(
              { length: rows },
              (_, row) =>
                Object.fromEntries(
                  attemptColumns.map((column, index) => [column, slot(row * attemptColumns.length + index)]),
                ) as unknown as WebhookAttemptsTable,
            ),
          ),
      );
      this.inserts.set(rows, query);
    }
    return query;
  }

  private successOf(rows: number): Compiled {
    let query = this.successes.get(rows);
    if (!query) {
      query = compileOnce((slot) =>
        this.db
          .updateTable("webhook_deliveries")
          .set({
            status: "succeeded",
            lease_until: null,
            completed_at: slot(0),
            last_status_code: slot(1),
            last_error: null,
          })
          .where(
            "id",
            "in",
            Array.from({ length: rows }, (_, index) => slot(3 + index)),
          )
          .where("attempt_count", "=", slot(2))
          // Pending, or failed by the endpoint's deletion while this attempt was under way (its lease kept).
          .where((eb) =>
            eb.or([
              eb("status", "=", "pending"),
              eb.and([eb("status", "=", "failed"), eb("lease_until", "is not", null)]),
            ]),
          ),
      );
      this.successes.set(rows, query);
    }
    return query;
  }
}
