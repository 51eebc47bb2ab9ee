// What a provider remembers per connection between calls (the shopping provider's last seen prices, for instance):
// small JSON values under (connection, kind, key), written in the caller's transaction so that a snapshot and the
// event it causes commit together. Deleting a connection deletes its snapshots.
import type { Kysely } from "kysely";
import type { Database } from "../../store/schema.ts";
import type { Clock } from "../clock.ts";

export class ConnectionSnapshots {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** Every value of that kind for the connection, by key. */
  async all<T>(connectionId: string, kind: string): Promise<Map<string, T>> {
    const rows = await this.db
      .selectFrom("connection_snapshots")
      .select(["key", "value"])
      .where("connection_id", "=", connectionId)
      .where("kind", "=", kind)
      .execute();
    return new Map(rows.map((r) => [r.key, JSON.parse(r.value) as T]));
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
