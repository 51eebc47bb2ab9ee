// Console users' emails in Unicode NFC, as they are now compared: an email written with decomposed characters (カ and
// U+3099 for ガ) is the same email as the composed one. A row whose composed form another row holds already is left
// as it is: both users stay; sign-in reaches the composed one, and the CLI's --email each one by its email as stored
// (`users list` writes the decomposed one's combining marks as \u escapes).
import type { Kysely } from "kysely";

interface Tables {
  console_users: { id: string; email: string };
}

export async function up(unknownDb: Kysely<unknown>): Promise<void> {
  const db = unknownDb as unknown as Kysely<Tables>;
  const rows = await db.selectFrom("console_users").select(["id", "email"]).execute();
  const taken = new Set(rows.map((row) => row.email));
  for (const row of rows) {
    const composed = row.email.normalize("NFC");
    if (composed === row.email || taken.has(composed)) continue;
    await db.updateTable("console_users").set({ email: composed }).where("id", "=", row.id).execute();
    taken.add(composed);
  }
}

export async function down(): Promise<void> {}
