// The web console: its users (per account, scrypt-hashed passwords), their sessions, failed sign-ins for throttling,
// the delegation tokens of try-it-out, and per-minute usage aggregates for the usage charts.
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("console_users")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
    .addColumn("email", "text", (c) => c.notNull().unique())
    .addColumn("password_hash", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("last_sign_in_at", "bigint")
    .execute();

  await db.schema
    .createTable("console_sessions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("user_id", "text", (c) => c.notNull().references("console_users.id"))
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("csrf_token", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("last_seen_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("console_sessions_expiry").on("console_sessions").column("expires_at").execute();

  await db.schema
    .createTable("console_login_failures")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("window_start", "bigint", (c) => c.notNull())
    .addColumn("failures", "integer", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("delegation_tokens")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("scopes", "text", (c) => c.notNull())
    .addColumn("connection_id", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("delegation_tokens_expiry").on("delegation_tokens").column("expires_at").execute();

  // Insert-only: each node flushes what it counted since its last flush; readers sum the rows of a minute.
  await db.schema
    .createTable("usage_minutes")
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("provider_id", "text", (c) => c.notNull())
    .addColumn("operation_id", "text", (c) => c.notNull())
    .addColumn("status", "integer", (c) => c.notNull())
    .addColumn("minute", "bigint", (c) => c.notNull())
    .addColumn("count", "integer", (c) => c.notNull())
    .addColumn("latency_buckets", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("usage_minutes_account").on("usage_minutes").columns(["account_id", "minute"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    "usage_minutes",
    "delegation_tokens",
    "console_login_failures",
    "console_sessions",
    "console_users",
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
