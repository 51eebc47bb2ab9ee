// Connections (a tenant's end user authorised at a provider, tokens sealed at rest), connect sessions (the hosted
// OAuth flow that creates them) and per-connection snapshots that providers keep (e.g. last seen prices).
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("connections")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
    .addColumn("provider_id", "text", (c) => c.notNull())
    .addColumn("external_ref", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("scopes", "text", (c) => c.notNull())
    .addColumn("access_token", "text")
    .addColumn("refresh_token", "text")
    .addColumn("access_expires_at", "bigint")
    // Compare-and-set of the refresh: a node refreshes only after moving these from free to its own lease.
    .addColumn("token_version", "integer", (c) => c.notNull())
    .addColumn("refresh_lock_owner", "text")
    .addColumn("refresh_lock_until", "bigint")
    .addColumn("replaces", "text")
    .addColumn("replaced_by", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addColumn("last_refreshed_at", "bigint")
    .addColumn("deleted_at", "bigint")
    .execute();
  // One live connection per account, provider and external_ref; the database enforces it under concurrent connects.
  await db.schema
    .createIndex("connections_one_live_per_ref")
    .on("connections")
    .columns(["account_id", "provider_id", "external_ref"])
    .unique()
    .where(sql.ref("status"), "in", sql`('active', 'needs_reauth')`)
    .execute();
  await db.schema
    .createIndex("connections_account_time")
    .on("connections")
    .columns(["account_id", "created_at", "id"])
    .execute();

  await db.schema
    .createTable("connect_sessions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
    .addColumn("provider_id", "text", (c) => c.notNull())
    .addColumn("external_ref", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("state_hash", "text", (c) => c.unique())
    .addColumn("code_verifier", "text")
    .addColumn("browser_hash", "text")
    .addColumn("failure", "text")
    .addColumn("connection_id", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .addColumn("finished_at", "bigint")
    .execute();

  await db.schema
    .createTable("connection_snapshots")
    .addColumn("connection_id", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("connection_snapshots_pk", ["connection_id", "kind", "key"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("connection_snapshots").execute();
  await db.schema.dropTable("connect_sessions").execute();
  await db.schema.dropTable("connections").execute();
}
