// Connections by the time they were deleted: the purge of those deleted more than 30 days ago finds them, a batch at a
// time, without reading the whole table (live connections have no deletion time, and the purge never reads them).
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("connections_deleted").on("connections").column("deleted_at").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("connections_deleted").execute();
}
