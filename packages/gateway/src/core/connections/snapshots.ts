// What a provider remembers per connection between calls (the shopping provider's last seen prices, for instance):
// small JSON values under (connection, kind, key), written in the caller's transaction so that a snapshot and the
// event it causes commit together. Deleting a connection deletes its snapshots.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../store/schema.ts";
import type { Clock } from "../clock.ts";

export class ConnectionSnapshots {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** Every value of that kind for the connection, by key. */
  async all<T>(connectionId: string, kind: string, db: Kysely<Database> = this.db): Promise<Map<string, T>> {
    const rows = await db
      .selectFrom("connection_snapshots")
      .select(["key", "value"])
      .where("connection_id", "=", connectionId)
      .where("kind", "=", kind)
      .execute();
    return new Map(rows.map((r) => [r.key, JSON.parse(r.value) as T]));
  }

  /**
   * As all(), read in `trx` after taking the connection's row lock: transactions that read a connection's snapshots
   * this way run one after another, each deciding from what the one before it committed (two checks at once record
   * an event once). The UPDATE that changes nothing locks the row on PostgreSQL until commit, as SELECT … FOR UPDATE
   * would, in a statement SQLite accepts too; there every write transaction holds the database's lock anyway.
   */
  async allLocked<T>(trx: Transaction<Database>, connectionId: string, kind: string): Promise<Map<string, T>> {
    await trx
      .updateTable("connections")
      .set((eb) => ({ id: eb.ref("id") }))
      .where("id", "=", connectionId)
      .execute();
    return this.all<T>(connectionId, kind, trx);
  }

  async put(trx: Kysely<Database>, connectionId: string, kind: string, key: string, value: unknown): Promise<void> {
    const row = { connection_id: connectionId, kind, key, value: JSON.stringify(value), updated_at: this.clock.now() };
    await trx
      .insertInto("connection_snapshots")
      .values(row)
      .onConflict((oc) =>
        oc.columns(["connection_id", "kind", "key"]).doUpdateSet({ value: row.value, updated_at: row.updated_at }),
      )
      .execute();
  }

  async remove(trx: Kysely<Database>, connectionId: string, kind: string, key?: string): Promise<void> {
    let query = trx
      .deleteFrom("connection_snapshots")
      .where("connection_id", "=", connectionId)
      .where("kind", "=", kind);
    if (key !== undefined) query = query.where("key", "=", key);
    await query.execute();
  }

  async removeAll(trx: Kysely<Database>, connectionId: string): Promise<void> {
    await trx.deleteFrom("connection_snapshots").where("connection_id", "=", connectionId).execute();
  }
}
