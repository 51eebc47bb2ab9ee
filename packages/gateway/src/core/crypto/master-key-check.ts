// Every node of a deployment must seal and open with the same master key: a node with another key would start, then
// fail on every provider token and webhook secret the others sealed. The store keeps a check value of the key its
// secrets are sealed with (an HMAC of a fixed text, which reveals nothing of the key); a node whose keys give another
// value refuses to start, saying why. A store that has secrets but no check value yet (it was created before the
// check existed) is checked against one of its sealed secrets first: the first node to start after the upgrade must
// not record a key that opens none of them.
//
// A rotation (docs/configuration.md) moves the check value: while the store's secrets may still be sealed under the
// old key, a node whose GATEWAY_MASTER_KEY_PREVIOUS holds the recorded key starts; once `gateway master-key reseal`
// has left nothing sealed under a previous key it records the current key's value, and from then on a node needs the
// new key. The keys it re-sealed away from are recorded as retired (their check values, one row each): a node whose
// current key is one of them is refused, saying so, whether it has only the old key (it could open none of the
// re-sealed secrets) or the old key current and the new one previous (it would seal under a key about to be removed).
// A node whose current key is not the recorded one records that it seals under it, and a node that does not hold every
// key so recorded is refused too: with the old key alone it would start, then fail on what the new key sealed.
import { createHmac } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../../store/schema.ts";
import type { Clock } from "../clock.ts";
import { type MasterKeyConfig, type ResolvedMasterKey, resolveMasterKey } from "./master-key.ts";
import { SecretBox } from "./secret-box.ts";

const settingName = "master_key_check";
/** Followed by a retired key's check value; the row's value is the check value of the key that replaced it. */
const retiredPrefix = "master_key_retired.";
/** Followed by the check value of a key a node seals under while the store records another (a rotation under way). */
const sealingPrefix = "master_key_sealing.";

export const masterKeyCheckValue = (key: Uint8Array) =>
  createHmac("sha256", key).update("gateway master key check v1").digest("base64url");

/** The keys a node holds: the one it seals with, the ones it still opens with, and where the first came from. */
export type MasterKeys = Pick<ResolvedMasterKey, "key" | "previous" | "origin">;

/**
 * Records the key's check value on a store that has none; throws when the store's is that of none of the node's keys,
 * naming where the key came from (`origin`: GATEWAY_MASTER_KEY, or the development key file).
 */
export async function checkMasterKey(db: Kysely<Database>, clock: Clock, keys: MasterKeys): Promise<void> {
  if ((await recordedValue(db)) === undefined) {
    const sealed = await aSealedSecret(db);
    // The key that opens the store's secrets is the store's, current or previous.
    const key = sealed === undefined ? keys.key : [keys.key, ...keys.previous].find((key) => opens(key, sealed));
    if (key === undefined) throw wrongKey(keys);
    // Insert-or-nothing, then read: of nodes starting together, the first one's value counts.
    await db
      .insertInto("store_settings")
      .values({ name: settingName, value: masterKeyCheckValue(key), created_at: clock.now() })
      .onConflict((oc) => oc.column("name").doNothing())
      .execute();
  }
  const refusal = await storeRefusal(db, keys);
  if (refusal) throw refusal;
  // A node sealing under another key than the recorded one (a rotation under way) says so in the store before it
  // seals anything, and a node that does not hold every key named so is refused (storeRefusal). The re-seal clears
  // these once nothing is left under them.
  const current = masterKeyCheckValue(keys.key);
  if ((await recordedValue(db)) !== current) {
    await db
      .insertInto("store_settings")
      .values({ name: `${sealingPrefix}${current}`, value: current, created_at: clock.now() })
      .onConflict((oc) => oc.column("name").doNothing())
      .execute();
  }
}

/**
 * Why the store's records refuse the node's keys, reading only: its current key retired, the recorded key none of its
 * keys, or a key a node seals under (a rotation under way) one it does not hold. Undefined when they are the node's.
 * The start runs it (checkMasterKey), and a serving node again (master-key-watch.ts): the records move while it runs.
 */
export async function storeRefusal(db: Kysely<Database>, keys: MasterKeys): Promise<Error | undefined> {
  const known = [keys.key, ...keys.previous].map(masterKeyCheckValue);
  const current = masterKeyCheckValue(keys.key);
  const recorded = await recordedValue(db);
  if (recorded !== current && (await retired(db, current))) {
    return new Error(
      `${keys.origin} is a master key this store retired: \`gateway master-key reseal\` re-sealed its secrets under ` +
        "a new key, which every node needs as GATEWAY_MASTER_KEY (and a retired key cannot seal again)",
    );
  }
  if (recorded === undefined || !known.includes(recorded)) return wrongKey(keys);
  // Started with the old key alone (a rolling rotation's first step skipped, or a restore of a backup taken
  // meanwhile), a node would pass the checks above, then fail on every value sealed under the new key.
  const sealing = await db
    .selectFrom("store_settings")
    .select("value")
    .where("name", "like", `${sealingPrefix}%`)
    .execute();
  if (sealing.some((row) => !known.includes(row.value))) {
    return new Error(
      `${keys.origin} lacks a key this store's secrets are being sealed with: a rotation of the master key is under ` +
        "way, and a node seals under a key this one does not hold. Give it the new key as well (as " +
        "GATEWAY_MASTER_KEY_PREVIOUS, or as GATEWAY_MASTER_KEY with this one as previous) until `gateway master-key " +
        "reseal` has re-sealed the secrets under the new key",
    );
  }
  return undefined;
}

const wrongKey = (keys: MasterKeys) =>
  new Error(
    `${keys.origin} is not the key this store's secrets are sealed with: give every node the store's key (in ` +
      "development without GATEWAY_MASTER_KEY, the one in <data dir>/master.key). During a rotation the key they " +
      "are sealed with goes in GATEWAY_MASTER_KEY_PREVIOUS until `gateway master-key reseal` has re-sealed them " +
      "under the new key; after one, every node needs the new key",
  );

/**
 * The node's keys (resolveMasterKey), checked against the store's. A key generated just now that the store refuses
 * would refuse every later start too: it is not kept.
 */
export async function resolveCheckedMasterKey(
  db: Kysely<Database>,
  clock: Clock,
  config: MasterKeyConfig,
): Promise<ResolvedMasterKey> {
  const keys = resolveMasterKey(config);
  try {
    await checkMasterKey(db, clock, keys);
  } catch (error) {
    keys.discard?.();
    throw error;
  }
  return keys;
}

const retired = async (db: Kysely<Database>, value: string) =>
  (await db
    .selectFrom("store_settings")
    .select("name")
    .where("name", "=", `${retiredPrefix}${value}`)
    .executeTakeFirst()) !== undefined;

/**
 * Records the current key's check value in place of a previous key's, once nothing sealed under a previous key is
 * left (core/crypto/reseal.ts), and retires the previous keys anything was sealed under: from then on, a node without the current key, or with
 * a previous one as its current key, is refused. A compare-and-set on the previous value: a store that records
 * another key's is left as it is. Answers whether the current key's value is the recorded one.
 */
export async function recordCurrentKey(db: Kysely<Database>, clock: Clock, keys: MasterKeys): Promise<boolean> {
  const value = masterKeyCheckValue(keys.key);
  const previous = keys.previous.map(masterKeyCheckValue);
  // The keys the store's secrets were sealed under until now: the one recorded, and those nodes said they sealed
  // under. Only these are retired: a previous key nothing was sealed under (the coming key, when the re-seal is run
  // with the rolling rotation's first-step variables) must stay usable as the next current key.
  const sealedUnder = [
    await recordedValue(db),
    ...(await db.selectFrom("store_settings").select("value").where("name", "like", `${sealingPrefix}%`).execute()).map(
      (row) => row.value,
    ),
  ];
  const retiring = previous.filter((old) => sealedUnder.includes(old));
  if (previous.length > 0) {
    await db
      .updateTable("store_settings")
      .set({ value })
      .where("name", "=", settingName)
      .where("value", "in", previous)
      .execute();
  }
  if ((await recordedValue(db)) !== value) return false;
  if (retiring.length > 0) {
    await db
      .insertInto("store_settings")
      .values(retiring.map((old) => ({ name: `${retiredPrefix}${old}`, value, created_at: clock.now() })))
      .onConflict((oc) => oc.column("name").doNothing())
      .execute();
  }
  // Nothing is left sealed under another key than the recorded one: no node needs more than the current key.
  await db.deleteFrom("store_settings").where("name", "like", `${sealingPrefix}%`).execute();
  return true;
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
