// Purges of rows past their retention, oldest first, a batch at a time. On the embedded store a statement runs on the
// event loop's thread: one DELETE of a backlog held every request of the node until it ended (100,000 expired
// Idempotency-Keys: 1.3 s; 100,000 events past retention with their deliveries and attempts: 3.5 s). Each batch is
// one short statement (or transaction), and the event loop turns between batches. A batch is bounded by time (the
// time of its last row), one code path for SQLite and PostgreSQL: rows sharing that millisecond go in the same batch.
import { setImmediate as nextTurn } from "node:timers/promises";
import { type Kysely, sql } from "kysely";
import type { Database } from "./schema.ts";

/** Rows a batch deletes (more only when rows share the millisecond that ends it). */
export const purgeBatchSize = 1_000;

/** A table's rows past retention, ordered by a time column (indexed: each batch finds its end through it). */
export interface RowsByTime {
  /** The time of the row `offset` places after the oldest at or before `cutoff`; undefined when there are fewer. */
  timeAt(offset: number, cutoff: number): Promise<number | undefined>;
  /** Deletes the rows at or before `upTo`; answers how many went. */
  deleteUpTo(upTo: number): Promise<number>;
}

/** Whether a purge is to end before its next batch (its node is stopping). */
export type Stopping = () => boolean;

const never: Stopping = () => false;

/**
 * Deletes the rows at or before `cutoff`, `batchSize` at a time, oldest first, until none is left or `stopping` says
 * so; answers how many went.
 */
export async function purgeInBatches(
  rows: RowsByTime,
  cutoff: number,
  stopping: Stopping = never,
  batchSize = purgeBatchSize,
): Promise<number> {
  let deleted = 0;
  for (;;) {
    const end = await rows.timeAt(batchSize - 1, cutoff);
    deleted += await rows.deleteUpTo(end ?? cutoff);
    if (end === undefined || stopping()) return deleted;
    await nextTurn();
  }
}

/** What a periodic run deletes, by name ("event", "inbound hook"): the name says which one failed. */
export type Purges = Readonly<Record<string, (stopping: Stopping) => Promise<unknown>>>;

/**
 * Purges run in turn every `intervalMs` (and at once with `immediately`), one run at a time. Each purge's failure is
 * its own (`onError` with its name): one failing (the store, a moment, a table) does not keep the next from its turn.
 * `stop` ends a run under way after its current batch and waits for it: a backlog's purge does not outlive the store
 * it deletes from.
 */
export class PeriodicPurge {
  private readonly timer: NodeJS.Timeout;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    purges: Purges,
    intervalMs: number,
    onError: (what: string, error: unknown) => void,
    options: { immediately?: boolean } = {},
  ) {
    const stopping = () => this.stopped;
    const run = async () => {
      for (const [what, purge] of Object.entries(purges)) {
        if (stopping()) return;
        await purge(stopping).catch((error: unknown) => onError(what, error));
      }
    };
    const tick = () => {
      if (this.running || this.stopped) return;
      this.running = run().finally(() => {
        this.running = undefined;
      });
    };
    this.timer = setInterval(tick, intervalMs);
    this.timer.unref();
    if (options.immediately) tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }
}

/**
 * The rows of `table` by an indexed time column: `timeAt` as the interface says, and `deleteUpTo` deleting them from
 * that table alone (a purge that deletes more with them, as events with their deliveries, gives its own).
 */
export function rowsByTime(store: Kysely<Database>, table: keyof Database & string, column: string): RowsByTime {
  // The table is chosen at run time; the builder's statements are the same as written out for each table.
  // biome-ignore lint/suspicious/noExplicitAny: a table and column named by the caller, not by the type
  const db = store as Kysely<any>;
  return {
    async timeAt(offset, cutoff) {
      const row = await db
        .selectFrom(table)
        .select(sql.ref<number>(column).as("time"))
        .where(column, "<=", cutoff)
        .orderBy(column)
        .limit(1)
        .offset(offset)
        .executeTakeFirst();
      return row === undefined ? undefined : Number(row.time);
    },
    async deleteUpTo(upTo) {
      const result = await db.deleteFrom(table).where(column, "<=", upTo).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
