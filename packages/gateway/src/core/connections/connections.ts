// Connections: a tenant's end user authorised at a provider. Resolution of credentials-mode calls (with refresh),
// reading, listing and deleting (with revocation at the provider). State changes live in lifecycle.ts.
import { type Kysely, sql, type Transaction } from "kysely";
import { purgeInBatches, rowsByTime, type Stopping } from "../../store/batched-purge.ts";
import type { ConnectionsTable, Database } from "../../store/schema.ts";
import type { Clock } from "../clock.ts";
import type { MasterKeyWatch } from "../crypto/master-key-watch.ts";
import { SealedValueDoesNotOpen, type SecretBox } from "../crypto/secret-box.ts";
import { GatewayError, notFound } from "../errors.ts";
import { type Events, eventRetentionMs } from "../events/events.ts";
import { newestFirstPage } from "../pagination.ts";
import { printable } from "../printable.ts";
import type { ConnectionResolver } from "../services.ts";
import {
  createReplacing,
  endConnection,
  type LifecycleDeps,
  liveStatuses,
  lockedLive,
  markNeedsReauth,
} from "./lifecycle.ts";
import type { ProviderOAuthClient, TokenSet } from "./oauth-client.ts";
import { ConnectionSnapshots } from "./snapshots.ts";
import { needsReauth, noConnection, type RefreshSettings, TokenRefresher } from "./token-refresh.ts";
import { type ConnectionView, toConnectionView } from "./views.ts";

export interface ConnectionsDeps {
  db: Kysely<Database>;
  clock: Clock;
  secretBox: SecretBox;
  /** Whether this node's master keys still open the store's secrets (core/crypto/master-key-watch.ts). */
  masterKeys?: Pick<MasterKeyWatch, "check"> | undefined;
  events: Events;
  oauthClient(providerId: string): ProviderOAuthClient | undefined;
  refresh: RefreshSettings;
  log?: { warn(object: object, message: string): void } | undefined;
}

export interface ListConnectionsInput {
  externalRef?: string | undefined;
  /** Connections whose external_ref starts with this (case-sensitive, as external_ref is matched everywhere). */
  externalRefPrefix?: string | undefined;
  providerId?: string | undefined;
  cursor?: string | undefined;
  limit: number;
}

/**
 * How long a deleted connection's row is kept (its tokens are erased when it is deleted): as long as the events that
 * name it, so that an event's connection id still answers 404 "deleted" alike, then it goes with its external_ref.
 */
export const deletedConnectionRetentionMs = eventRetentionMs;

const noConnectionAtAll = (connectionId: string) => notFound(`No connection ${printable(connectionId)}`);

export class Connections implements ConnectionResolver {
  readonly snapshots: ConnectionSnapshots;
  private readonly lifecycle: LifecycleDeps;
  private readonly refresher: TokenRefresher;

  constructor(private readonly deps: ConnectionsDeps) {
    this.snapshots = new ConnectionSnapshots(deps.db, deps.clock);
    this.lifecycle = { ...deps, snapshots: this.snapshots };
    this.refresher = new TokenRefresher({
      ...deps,
      settings: deps.refresh,
      markNeedsReauth: (connectionId, owner) => markNeedsReauth(this.lifecycle, connectionId, owner),
    });
  }

  /**
   * For a stopping node: resolves once the token refreshes under way have ended, starting no new one. A stopping
   * node waits for them (within its shutdown timeout): a refresh given up would lose the rotated refresh token its
   * answer brings.
   */
  stop(): Promise<void> {
    return this.refresher.stop();
  }

  /**
   * Deletes the rows of connections deleted more than `deletedConnectionRetentionMs` ago, a batch at a time, until
   * none is left or `stopping` says so; answers how many went. Each node runs it with the connect sessions' purge.
   */
  purgeDeleted(stopping?: Stopping): Promise<number> {
    const cutoff = this.deps.clock.now() - deletedConnectionRetentionMs;
    return purgeInBatches(rowsByTime(this.deps.db, "connections", "deleted_at"), cutoff, stopping);
  }

  /** Whether the provider can be connected (it declares OAuth and its authorization server is known). */
  supports(providerId: string): boolean {
    return this.deps.oauthClient(providerId) !== undefined;
  }

  /** The connection of a call made for the gateway request `requestId` (a refresh it needs carries that id). */
  async resolveForCall(input: { accountId: string; providerId: string; connectionId: string; requestId: string }) {
    const row = await this.callable(input);
    const accessToken = await this.refresher.accessToken(row, input.requestId);
    return { id: row.id, externalRef: row.external_ref, accessToken };
  }

  /** The provider refused `rejectedToken` (HTTP 401): refresh unless another call already did; answer the new one. */
  async refreshRejected(input: {
    accountId: string;
    providerId: string;
    connectionId: string;
    rejectedToken: string;
    requestId: string;
  }) {
    const row = await this.callable(input);
    const current = row.access_token ? this.deps.secretBox.open(row.access_token) : undefined;
    if (current !== undefined && current !== input.rejectedToken) return current;
    return this.refresher.accessToken(row, input.requestId, true);
  }

  /** Creates the connection of a completed flow in `trx`, replacing the live one of the same external_ref. */
  create(
    trx: Transaction<Database>,
    input: { accountId: string; providerId: string; externalRef: string; tokens: TokenSet },
  ) {
    return createReplacing(this.lifecycle, trx, input);
  }

  async get(accountId: string, connectionId: string): Promise<ConnectionView> {
    const row = await this.liveRow(accountId, connectionId);
    if (!row) throw noConnectionAtAll(connectionId);
    return toConnectionView(row);
  }

  async list(accountId: string, input: ListConnectionsInput) {
    let query = this.deps.db
      .selectFrom("connections")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("status", "in", liveStatuses);
    if (input.externalRef !== undefined) query = query.where("external_ref", "=", input.externalRef);
    if (input.externalRefPrefix !== undefined) {
      // substr counts characters on both stores (LIKE would need escaping, and ignores case on SQLite).
      const characters = [...input.externalRefPrefix].length;
      query = query.where(sql`substr(external_ref, 1, ${characters})`, "=", input.externalRefPrefix);
    }
    if (input.providerId !== undefined) query = query.where("provider_id", "=", input.providerId);
    const { items, pagination } = await newestFirstPage(query, input.cursor, input.limit);
    return { connections: items.map(toConnectionView), pagination };
  }

  /**
   * Deletes the connection and revokes its grant at the provider; answers whether the provider confirmed. The token
   * that revokes is opened before the deletion is committed: on a node whose master keys the store's records refuse
   * nothing is done, and the node's refusal is thrown (a retry through a node that holds the key does the whole of
   * it). A token no key opens (altered) can be revoked by no node: the connection is deleted all the same, unrevoked.
   * The revocation carries `requestId`, the gateway request of the deletion.
   */
  async delete(
    accountId: string,
    connectionId: string,
    requestId: string,
  ): Promise<{ connection: ConnectionView; revoked: boolean }> {
    let ended: { row: ConnectionsTable; grant: string | undefined };
    try {
      ended = await this.end(accountId, connectionId, true);
    } catch (error) {
      if (!(error instanceof SealedValueDoesNotOpen)) throw error;
      // Whether the store's records refuse this node's keys (a store that fails to say fails the call: nothing done).
      const refusal = await this.deps.masterKeys?.check();
      if (refusal) {
        // Nothing was done: an Idempotency-Key stays free for the retry through another node.
        throw new GatewayError(refusal.code, refusal.message, {
          retryable: refusal.retryable,
          logged: refusal.logged,
          notExecuted: true,
        });
      }
      ended = await this.end(accountId, connectionId, false);
      this.deps.log?.warn(
        { err: error, provider: ended.row.provider_id, account_id: accountId, connection_id: connectionId },
        "a deleted connection's token opens under no master key (altered): its grant was not revoked at the provider",
      );
    }
    const client = this.deps.oauthClient(ended.row.provider_id);
    const revoked = client !== undefined && ended.grant !== undefined && (await client.revoke(ended.grant, requestId));
    return { connection: await this.view(ended.row.id), revoked };
  }

  /**
   * Ends the live connection in one transaction; answers its row before, and the token that revokes its grant, opened
   * (when `open`) before anything is written: one that does not open throws, and the transaction writes nothing. The
   * row is read under its lock: a token refresh that commits meanwhile is ended with it, its rotated token revoked.
   */
  private end(accountId: string, connectionId: string, open: boolean) {
    return this.deps.db.transaction().execute(async (trx) => {
      const found = await lockedLive(trx, { id: connectionId, account_id: accountId });
      if (!found) throw noConnectionAtAll(connectionId);
      const grant = open ? this.grantToken(found) : undefined;
      const row = await endConnection(this.lifecycle, trx, found, null);
      if (!row) throw noConnectionAtAll(connectionId);
      return { row, grant };
    });
  }

  /** The token that revokes a connection's grant, opened: the refresh token ends the whole grant at a compliant server. */
  private grantToken(row: ConnectionsTable): string | undefined {
    const sealed = row.refresh_token ?? row.access_token;
    if (!this.deps.oauthClient(row.provider_id) || !sealed) return undefined;
    return this.deps.secretBox.open(sealed);
  }

  /**
   * The sealed token that revokes the grant of the live connection a completed flow for this ref would replace, if
   * any: a connect callback opens it before it claims the session (connect-sessions.ts).
   */
  async replaceableGrant(input: {
    accountId: string;
    providerId: string;
    externalRef: string;
  }): Promise<string | undefined> {
    const row = await this.deps.db
      .selectFrom("connections")
      .select(["refresh_token", "access_token"])
      .where("account_id", "=", input.accountId)
      .where("provider_id", "=", input.providerId)
      .where("external_ref", "=", input.externalRef)
      .where("status", "in", liveStatuses)
      .executeTakeFirst();
    return row?.refresh_token ?? row?.access_token ?? undefined;
  }

  /**
   * Revokes a (now dead) connection's grant, for the gateway request `requestId`; answers whether the provider
   * confirmed. A token that does not open is logged at warn, not thrown: the connection has ended already, and its
   * caller's work is done.
   */
  async revokeAtProvider(row: ConnectionsTable, requestId: string): Promise<boolean> {
    const client = this.deps.oauthClient(row.provider_id);
    let grant: string | undefined;
    try {
      grant = this.grantToken(row);
    } catch (error) {
      if (!(error instanceof SealedValueDoesNotOpen)) throw error;
      this.deps.log?.warn(
        { err: error, provider: row.provider_id, account_id: row.account_id, connection_id: row.id },
        "a replaced connection's token does not open with this node's master keys: its grant was not revoked at the provider",
      );
      return false;
    }
    return client !== undefined && grant !== undefined && client.revoke(grant, requestId);
  }

  /** The live connection of the account for this provider, or the 404 and 422 of credentials-mode calls. */
  private async callable(input: { accountId: string; providerId: string; connectionId: string }) {
    const row = await this.liveRow(input.accountId, input.connectionId);
    if (!row || row.provider_id !== input.providerId) throw noConnection(input.connectionId, input.providerId);
    if (row.status === "needs_reauth") throw needsReauth(input.providerId);
    return row;
  }

  private async view(connectionId: string): Promise<ConnectionView> {
    const row = await this.deps.db
      .selectFrom("connections")
      .selectAll()
      .where("id", "=", connectionId)
      .executeTakeFirstOrThrow();
    return toConnectionView(row);
  }

  private liveRow(accountId: string, connectionId: string) {
    return this.deps.db
      .selectFrom("connections")
      .selectAll()
      .where("id", "=", connectionId)
      .where("account_id", "=", accountId)
      .where("status", "in", liveStatuses)
      .executeTakeFirst();
  }
}
