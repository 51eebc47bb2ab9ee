// The gateway's time on PostgreSQL: the database server's clock, read at start and every 10 s, and carried forward
// between readings by this process's monotonic clock. Nodes compare times other nodes wrote (an idempotency claim's
// lease, a webhook delivery's lease and due time, a token refresh's lock, a connect session's expiry) with their own
// now; taken from the one database, those agree to a few milliseconds whatever the machines' clocks say, so a node
// whose clock runs minutes ahead cannot take over a claim another node still holds, nor sign webhooks in the future.
import { type Kysely, sql } from "kysely";
import type { Database } from "../store/schema.ts";
import type { Clock } from "./clock.ts";

/** A reading is kept only if its round trip is shorter: its error is at most half of it. */
const maxRoundTripMs = 1_000;
const readingsAtStart = 3;
/** Also how long nodes may disagree after the server's clock is stepped back: each node follows at its next reading. */
export const resyncIntervalMs = 10_000;

interface Reading {
  /** The database's time, in ms since the epoch, at the middle of the round trip. */
  databaseMs: number;
  /** performance.now() then. */
  at: number;
  roundTripMs: number;
}

export class DatabaseClock implements Clock {
  private timer: NodeJS.Timeout | undefined;
  /**
   * Never goes back for a reading's error: a new reading a few ms behind the carried-forward time holds the clock until
   * it catches up. The database's clock set back further (an NTP step, a failover) is followed at once, as a node
   * started then reads it: held, this node's time would stand still for as long, minutes ahead of the others.
   */
  private last = 0;

  private constructor(
    private readonly db: Kysely<Database>,
    private reading: Reading,
  ) {}

  /** Reads the database's clock (the best of a few readings) and keeps it up to date until `stop`. */
  static async start(db: Kysely<Database>, onError: (error: unknown) => void): Promise<DatabaseClock> {
    let best = await read(db);
    for (let i = 1; i < readingsAtStart; i++) {
      const next = await read(db);
      if (next.roundTripMs < best.roundTripMs) best = next;
    }
    const clock = new DatabaseClock(db, best);
    // Said once while it lasts (the store down: every reading fails alike).
    let failing = false;
    // One reading at a time: a frozen server answers none within the store's timeout (30 s), and readings begun every
    // 10 s meanwhile would each hold a pooled connection.
    let reading = false;
    clock.timer = setInterval(() => {
      if (reading) return;
      reading = true;
      clock.resync().then(
        () => {
          failing = false;
          reading = false;
        },
        (error: unknown) => {
          if (!failing) onError(error);
          failing = true;
          reading = false;
        },
      );
    }, resyncIntervalMs);
    clock.timer.unref();
    return clock;
  }

  now(): number {
    this.last = Math.max(this.last, carried(this.reading));
    return this.last;
  }

  /** Takes a new reading, unless the store answered too slowly for it to be exact (the last one is kept). */
  async resync(): Promise<void> {
    const next = await read(this.db);
    if (next.roundTripMs > maxRoundTripMs) return;
    this.reading = next;
    // Further behind than a kept reading's error (half its round trip) can be: the database's clock was set back.
    if (carried(next) < this.last - maxRoundTripMs) this.last = 0;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** The database's time now, by a reading carried forward with the monotonic clock. */
const carried = ({ databaseMs, at }: Reading): number => Math.round(databaseMs + performance.now() - at);

async function read(db: Kysely<Database>): Promise<Reading> {
  const sent = performance.now();
  const { rows } = await sql<{ ms: number }>`select extract(epoch from clock_timestamp()) * 1000 as ms`.execute(db);
  const answered = performance.now();
  return { databaseMs: Number(rows[0]?.ms), at: (sent + answered) / 2, roundTripMs: answered - sent };
}
