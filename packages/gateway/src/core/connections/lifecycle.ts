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
  const old = await trx
    .selectFrom("connections")
    .selectAll()
    .where("account_id", "=", input.accountId)
    .where("provider_id", "=", input.providerId)
    .where("external_ref", "=", input.externalRef)
    .where("status", "in", liveStatuses)
    .executeTakeFirst();
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
