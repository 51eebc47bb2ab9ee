// The gateway's copy of each resource of a stateful provider (reservations, waitlist entries, orders, rides,
// payments): the object exactly as its get_… operation answers it, the upstream's id and revision, and the account
// that owns it. A row without an account is a change pushed by the upstream before the call that created the
// resource recorded it; that call adopts it.
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("provider_resources")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("provider_id", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("upstream_id", "text", (c) => c.notNull())
    .addColumn("account_id", "text")
    .addColumn("connection_id", "text")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("object", "text", (c) => c.notNull())
    .addColumn("upstream_revision", "bigint", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  // Hooks name the upstream's id; one copy per upstream resource, also under concurrent hooks.
  await db.schema
    .createIndex("provider_resources_upstream")
    .on("provider_resources")
    .columns(["provider_id", "kind", "upstream_id"])
    .unique()
    .execute();
  await db.schema
    .createIndex("provider_resources_account")
    .on("provider_resources")
    .columns(["account_id", "provider_id", "kind", "created_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("provider_resources").execute();
}
