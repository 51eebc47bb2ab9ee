// A copy made from hooks before the creating call recorded it (no owner yet) keeps every state it passed through, so
// that the call, adopting it, records the event of each change in order rather than one for the last state only.
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("provider_resources").addColumn("unowned_history", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("provider_resources").dropColumn("unowned_history").execute();
}
