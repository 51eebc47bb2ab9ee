// Pending deliveries by endpoint, then due time: a claim that passes over an endpoint holding its share walks the due
// rows of each other endpoint from its oldest, and never reads the passed-over endpoint's rows, however many are due
// (core/webhooks/claim.ts). The id orders rows due at the same millisecond, as it does in the claim.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("webhook_deliveries_endpoint_due")
    .on("webhook_deliveries")
    .columns(["endpoint_id", "next_attempt_at", "id"])
    .where(sql.ref("status"), "=", "pending")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("webhook_deliveries_endpoint_due").execute();
}
