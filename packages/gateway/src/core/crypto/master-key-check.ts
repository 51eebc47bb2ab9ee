// Every node of a deployment must seal and open with the same master key: a node with another key would start, then
// fail on every provider token and webhook secret the others sealed. The store keeps a check value of the key it
// was first used with (an HMAC of a fixed text, which reveals nothing of the key); a node whose key gives another
// value refuses to start, saying why.
import { createHmac } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../../store/schema.ts";
import type { Clock } from "../clock.ts";

const settingName = "master_key_check";

export const masterKeyCheckValue = (key: Uint8Array) =>
  createHmac("sha256", key).update("gateway master key check v1").digest("base64url");

/** Records the key's check value on a store that has none; throws when the store's differs from this key's. */
export async function checkMasterKey(db: Kysely<Database>, clock: Clock, key: Uint8Array): Promise<void> {
  const value = masterKeyCheckValue(key);
  await db
    .insertInto("store_settings")
    .values({ name: settingName, value, created_at: clock.now() })
    .onConflict((oc) => oc.column("name").doNothing())
    .execute();
  const stored = await db
    .selectFrom("store_settings")
    .select("value")
    .where("name", "=", settingName)
    .executeTakeFirstOrThrow();
  if (stored.value !== value) {
    throw new Error(
      "GATEWAY_MASTER_KEY is not the key this store's secrets were sealed with: give every node the key the first " +
        "one used (in development, the one in <data dir>/master.key)",
    );
  }
}
