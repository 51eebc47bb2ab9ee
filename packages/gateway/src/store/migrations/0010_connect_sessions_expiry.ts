// Connect sessions by expiry: the purge of sessions past their retention finds them, a batch at a time, without
// reading the whole table.
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("connect_sessions_expiry").on("connect_sessions").column("expires_at").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("connect_sessions_expiry").execute();
}
