// Webhook endpoints and their secrets, the event log, the delivery outbox with its attempt log, and the record of
// inbound provider hooks already processed (deduplication).
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("webhook_endpoints")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().unique().references("accounts.id"))
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("event_types", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();

  // Several rows per endpoint only during a rotation's grace: every unexpired secret signs.
  await db.schema
    .createTable("webhook_secrets")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("endpoint_id", "text", (c) => c.notNull().references("webhook_endpoints.id").onDelete("cascade"))
    .addColumn("secret_sealed", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint")
    .execute();
  await db.schema.createIndex("webhook_secrets_endpoint").on("webhook_secrets").column("endpoint_id").execute();

  await db.schema
    .createTable("events")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    // The envelope exactly as delivered: every attempt sends these bytes.
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("events_account_time").on("events").columns(["account_id", "created_at", "id"]).execute();
  await db.schema
    .createIndex("events_account_type_time")
    .on("events")
    .columns(["account_id", "type", "created_at", "id"])
    .execute();
  await db.schema.createIndex("events_time").on("events").column("created_at").execute();

  await db.schema
    .createTable("webhook_deliveries")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("endpoint_id", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("attempt_count", "integer", (c) => c.notNull())
    .addColumn("next_attempt_at", "bigint", (c) => c.notNull())
    // A worker owns a claimed delivery until then; past it, another worker may take it (the first one died).
    .addColumn("lease_until", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("deadline_at", "bigint", (c) => c.notNull())
    .addColumn("completed_at", "bigint")
    .addColumn("last_status_code", "integer")
    .addColumn("last_error", "text")
    .execute();
  await db.schema
    .createIndex("webhook_deliveries_due")
    .on("webhook_deliveries")
    .column("next_attempt_at")
    .where(sql.ref("status"), "=", "pending")
    .execute();
  await db.schema.createIndex("webhook_deliveries_event").on("webhook_deliveries").column("event_id").execute();

  await db.schema
    .createTable("webhook_attempts")
    .addColumn("delivery_id", "text", (c) => c.notNull())
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("attempt", "integer", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("attempted_at", "bigint", (c) => c.notNull())
    .addColumn("status_code", "integer")
    .addColumn("latency_ms", "integer", (c) => c.notNull())
    .addColumn("error", "text")
    .addColumn("response_body", "text")
    // One index only: attempts are written for every delivery and read per delivery.
    .addPrimaryKeyConstraint("webhook_attempts_pk", ["delivery_id", "attempt"])
    .execute();

  await db.schema
    .createTable("inbound_hooks")
    .addColumn("provider_id", "text", (c) => c.notNull())
    .addColumn("provider_event_id", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("inbound_hooks_pk", ["provider_id", "provider_event_id"])
    .execute();
  await db.schema.createIndex("inbound_hooks_time").on("inbound_hooks").column("received_at").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    "inbound_hooks",
    "webhook_attempts",
    "webhook_deliveries",
    "events",
    "webhook_secrets",
    "webhook_endpoints",
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
