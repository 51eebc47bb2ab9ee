// An index of the webhook deliveries under a lease (claimed, waiting for a slot or in flight): the claim counts them
// per endpoint to cap each endpoint's share of the delivery slots. A lease ends with its attempt, so the index stays
// small whatever the backlog.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("webhook_deliveries_leased")
    .on("webhook_deliveries")
    .columns(["endpoint_id", "lease_until"])
    .where(sql.ref("lease_until"), "is not", null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("webhook_deliveries_leased").execute();
}
