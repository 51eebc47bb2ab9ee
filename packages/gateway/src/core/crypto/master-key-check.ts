// Every node of a deployment must seal and open with the same master key: a node with another key would start, then
// fail on every provider token and webhook secret the others sealed. The store keeps a check value of the key it
// was first used with (an HMAC of a fixed text, which reveals nothing of the key); a node whose key gives another
// value refuses to start, saying why. A store that has secrets but no check value yet (it was created before the
// check existed) is checked against one of its sealed secrets first: the first node to start after the upgrade must
// not record a key that opens none of them.
import { createHmac } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../../store/schema.ts";
import type { Clock } from "../clock.ts";
import { SecretBox } from "./secret-box.ts";

const settingName = "master_key_check";

export const masterKeyCheckValue = (key: Uint8Array) =>
  createHmac("sha256", key).update("gateway master key check v1").digest("base64url");

/**
 * Records the key's check value on a store that has none; throws when the store's differs from this key's, naming
 * where the key came from (`origin`: GATEWAY_MASTER_KEY, or the development key file).
 */
export async function checkMasterKey(
  db: Kysely<Database>,
  clock: Clock,
  key: Uint8Array,
  origin = "GATEWAY_MASTER_KEY",
): Promise<void> {
  const wrongKey = () =>
    new Error(
      `${origin} is not the key this store's secrets were sealed with: give every node the key the first one used ` +
        "(in development without GATEWAY_MASTER_KEY, the one in <data dir>/master.key)",
    );
  const value = masterKeyCheckValue(key);
  let recorded = await recordedValue(db);
  if (recorded === undefined) {
    const sealed = await aSealedSecret(db);
    if (sealed !== undefined && !opens(key, sealed)) throw wrongKey();
    // Insert-or-nothing, then read: of nodes starting together, the first one's value counts.
    await db
      .insertInto("store_settings")
      .values({ name: settingName, value, created_at: clock.now() })
      .onConflict((oc) => oc.column("name").doNothing())
      .execute();
    recorded = await recordedValue(db);
  }
  if (recorded !== value) throw wrongKey();
}

const recordedValue = async (db: Kysely<Database>) =>
  (await db.selectFrom("store_settings").select("value").where("name", "=", settingName).executeTakeFirst())?.value;

/** One secret the store holds sealed, if any: a webhook signing secret, else a provider token. */
async function aSealedSecret(db: Kysely<Database>): Promise<string | undefined> {
  const secret = await db.selectFrom("webhook_secrets").select("secret_sealed").limit(1).executeTakeFirst();
  if (secret) return secret.secret_sealed;
  const token = await db
    .selectFrom("connections")
    .select("access_token")
    .where("access_token", "is not", null)
    .limit(1)
    .executeTakeFirst();
  return token?.access_token ?? undefined;
}

function opens(key: Uint8Array, sealed: string): boolean {
  try {
    new SecretBox(key).open(sealed);
    return true;
  } catch {
    return false;
  }
}
