// The state changes of a connection, each in one transaction with its connection.* event: creation (replacing the
// live connection of the same external_ref), deletion, and the move to needs_reauth. A connection that ends keeps
// no token: the columns are emptied in the same write.
import type { Kysely, Transaction } from "kysely";
import type { ConnectionsTable, Database } from "../../store/schema.ts";
import type { Clock } from "../clock.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import type { Events } from "../events/events.ts";
import { newId } from "../ids.ts";
import type { TokenSet } from "./oauth-client.ts";
import type { ConnectionSnapshots } from "./snapshots.ts";
import { type ConnectionView, toConnectionView, withChanges } from "./views.ts";

export interface LifecycleDeps {
  db: Kysely<Database>;
  clock: Clock;
  secretBox: SecretBox;
  events: Events;
  snapshots: ConnectionSnapshots;
}

export const liveStatuses = ["active", "needs_reauth"] as const;
const noTokens = { access_token: null, refresh_token: null, refresh_lock_owner: null, refresh_lock_until: null };

async function record(deps: LifecycleDeps, trx: Kysely<Database>, type: string, row: ConnectionsTable) {
  await deps.events.record(trx, { accountId: row.account_id, type, object: { ...toConnectionView(row) } });
}

/**
 * The live connection `match` picks, read again in `trx` after taking its row lock (held until `trx` ends), for a
 * transaction that ends it: the row it answers is the row as it is ended, so the token that revokes its grant is the
 * current one; undefined if it ended meanwhile. On PostgreSQL a row read without the lock may be older than the one the
 * ending UPDATE then writes over (a token refresh that committed in between, on another connection), and revoking its
 * refresh token, already rotated away, would leave the new grant alive at a server that revokes only the token it is
 * given. The lock is taken on the row found by id: one a `match` alone locked could be another row by the time it is
 * read. The UPDATE that changes nothing locks the row as SELECT … FOR UPDATE would, in a statement SQLite accepts too;
 * there every write transaction holds the database's lock from its start (BEGIN IMMEDIATE), so that nothing commits
 * between its read and its write anyway.
 */
export async function lockedLive(
  trx: Transaction<Database>,
  match: Partial<Pick<ConnectionsTable, "id" | "account_id" | "provider_id" | "external_ref">>,
): Promise<ConnectionsTable | undefined> {
  const live = (where: Partial<ConnectionsTable>) =>
    trx
      .selectFrom("connections")
      .selectAll()
      .where((eb) => eb.and(where))
      .where("status", "in", liveStatuses)
      .executeTakeFirst();
  const found = await live(match);
  if (!found) return undefined;
  await trx
    .updateTable("connections")
    .set((eb) => ({ id: eb.ref("id") }))
    .where("id", "=", found.id)
    .execute();
  return live({ id: found.id });
}

/** Ends a live connection (deleted, or replaced by `replacedBy`); answers the row before, or undefined if not live. */
export async function endConnection(
  deps: LifecycleDeps,
  trx: Transaction<Database>,
  row: ConnectionsTable,
  replacedBy: string | null,
): Promise<ConnectionsTable | undefined> {
  const now = deps.clock.now();
  const gone = {
    status: "deleted",
    deleted_at: now,
    updated_at: now,
    ...(replacedBy && { replaced_by: replacedBy }),
  } as const;
  const changed = await trx
    .updateTable("connections")
    .set({ ...gone, ...noTokens })
    .where("id", "=", row.id)
    .where("status", "in", liveStatuses)
    .executeTakeFirst();
  if (Number(changed.numUpdatedRows) !== 1) return undefined;
  await deps.snapshots.removeAll(trx, row.id);
  await record(deps, trx, "connection.deleted", withChanges(row, gone));
  return row;
}

/** Creates the connection of a completed flow, replacing the live one of the same account, provider and ref. */
export async function createReplacing(
  deps: LifecycleDeps,
  trx: Transaction<Database>,
  input: { accountId: string; providerId: string; externalRef: string; tokens: TokenSet },
): Promise<{ connection: ConnectionView; replaced: ConnectionsTable | undefined }> {
  const now = deps.clock.now();
  const id = newId("conn", 22);
  const old = await lockedLive(trx, {
    account_id: input.accountId,
    provider_id: input.providerId,
    external_ref: input.externalRef,
  });
  const replaced = old && (await endConnection(deps, trx, old, id));
  const { tokens } = input;
  const row: ConnectionsTable = {
    id,
    account_id: input.accountId,
    provider_id: input.providerId,
    external_ref: input.externalRef,
    status: "active",
    scopes: JSON.stringify(tokens.scopes),
    access_token: deps.secretBox.seal(tokens.accessToken),
    refresh_token: tokens.refreshToken ? deps.secretBox.seal(tokens.refreshToken) : null,
    access_expires_at: tokens.expiresAt,
    token_version: 0,
    refresh_lock_owner: null,
    refresh_lock_until: null,
    replaces: replaced?.id ?? null,
    replaced_by: null,
    created_at: now,
    updated_at: now,
    last_refreshed_at: null,
    deleted_at: null,
  };
  await trx.insertInto("connections").values(row).execute();
  await record(deps, trx, "connection.created", row);
  return { connection: toConnectionView(row), replaced };
}

/** The provider refused the refresh: needs_reauth, if the lease `owner` still holds the connection. */
export async function markNeedsReauth(deps: LifecycleDeps, connectionId: string, owner: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom("connections").selectAll().where("id", "=", connectionId).executeTakeFirst();
    const changes = { status: "needs_reauth", updated_at: deps.clock.now() } as const;
    const changed = await trx
      .updateTable("connections")
      .set({ ...changes, ...noTokens })
      .where("id", "=", connectionId)
      .where("status", "=", "active")
      .where("refresh_lock_owner", "=", owner)
      .executeTakeFirst();
    if (row && Number(changed.numUpdatedRows) === 1)
      await record(deps, trx, "connection.needs_reauth", withChanges(row, changes));
  });
}
