// A delegation token belongs to the console session that minted it: signing out, a new password or the user's
// deletion ends the session, and with it every token the session minted. Tokens minted before this column have none
// and are refused (they lived 10 minutes at most).
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("delegation_tokens").addColumn("session_id", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("delegation_tokens").dropColumn("session_id").execute();
}
