// Idempotency records: one row per (account, Idempotency-Key), claimed atomically by the primary key, holding the
// sealed first response for 24 hours. The key itself is not stored, only its SHA-256.
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("idempotency_keys")
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("key_hash", "text", (c) => c.notNull())
    .addColumn("fingerprint", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("claim_token", "text", (c) => c.notNull())
    .addColumn("lease_until", "bigint", (c) => c.notNull())
    .addColumn("status", "integer")
    .addColumn("content_type", "text")
    .addColumn("body", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("idempotency_keys_pk", ["account_id", "key_hash"])
    .execute();
  await db.schema.createIndex("idempotency_keys_expiry").on("idempotency_keys").column("expires_at").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("idempotency_keys").execute();
}
