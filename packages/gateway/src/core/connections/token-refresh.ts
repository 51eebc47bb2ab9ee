// Fresh access tokens for calls. A token due to expire is refreshed by exactly one caller across every gateway node:
// calls on one node share one promise, and nodes compete through a compare-and-set lease on the connection row
// (token_version unchanged and no live lease → take the lease). Losers wait for the winner's new token_version.
// A refresh the provider refuses (invalid_grant) turns the connection to needs_reauth.
//
// A refresh outlives the calls that wait for it. A provider that rotates refresh tokens has used up the old one as
// soon as it answers, so a token request abandoned before its answer arrives would lose the only refresh token that
// still works. Calls wait at most `waitMs` (the upstream timeout) and then answer a retryable 502, while the request
// goes on for up to `requestMs` and its tokens are stored when they come; the lease lasts longer than that request,
// so that no other node refreshes with the same refresh token meanwhile.
import { setTimeout as sleep } from "node:timers/promises";
import type { Kysely } from "kysely";
import type { ConnectionsTable, Database } from "../../store/schema.ts";
import type { Clock } from "../clock.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import { GatewayError, notFound } from "../errors.ts";
import { randomBase62 } from "../ids.ts";
import { printable } from "../printable.ts";
import { type ProviderOAuthClient, RefreshRefused, type TokenSet } from "./oauth-client.ts";

export interface RefreshSettings {
  /** Refresh when the access token expires within this margin, or within half its lifetime if shorter (60 s). */
  skewMs: number;
  /** How long a token request may take before it is abandoned (30 s, or the upstream timeout if longer). */
  requestMs: number;
  /** How long a node holds the refresh lease before another may take over: past a token request (requestMs + 10 s). */
  leaseMs: number;
  /** How long a call waits for a refresh before answering a retryable 502 (the upstream timeout, 10 s). */
  waitMs: number;
}

/** The settings for calls whose upstream timeout is `timeoutMs`. */
export function refreshSettings(timeoutMs: number): RefreshSettings {
  const requestMs = Math.max(30_000, timeoutMs);
  return { skewMs: 60_000, requestMs, leaseMs: requestMs + 10_000, waitMs: timeoutMs };
}

export const noConnection = (connectionId: string, providerId: string) =>
  notFound(`No connection ${printable(connectionId)} for the ${providerId} provider`);

const notFinished = (providerId: string) =>
  new GatewayError("provider_unavailable", `The ${providerId} token refresh did not finish in time`, {
    provider: providerId,
    notExecuted: true,
  });

const stopped = (providerId: string) =>
  new GatewayError("provider_unavailable", `The ${providerId} token refresh was not started: this node is stopping`, {
    provider: providerId,
    notExecuted: true,
  });

export const needsReauth = (providerId: string) =>
  new GatewayError("provider_rejected", `The ${providerId} account behind this connection must be authorised again`, {
    provider: providerId,
    fix: "Create a connect session (platform:create_connect_session) for the same external_ref and send the end user to its connect_url.",
  });

export interface RefresherDeps {
  db: Kysely<Database>;
  clock: Clock;
  secretBox: SecretBox;
  oauthClient(providerId: string): ProviderOAuthClient | undefined;
  /** Marks the connection needs_reauth (and records the event) if the lease `owner` still holds it. */
  markNeedsReauth(connectionId: string, owner: string): Promise<void>;
  settings: RefreshSettings;
  /** Where a refresh's failure is said when no call is left waiting for it (it would go unheard otherwise). */
  log?: { warn(object: object, message: string): void } | undefined;
}

/** A refresh under way on this node, and how many calls still wait for it. */
interface Refresh {
  promise: Promise<string>;
  waiting: number;
}

export class TokenRefresher {
  private readonly inFlight = new Map<string, Refresh>();
  private stopping = false;
  private readonly node = randomBase62(10);

  constructor(private readonly deps: RefresherDeps) {}

  /**
   * Whether the access token is to be refreshed before use: it expires within the margin, which is `skewMs` or half
   * the token's lifetime when that is shorter (a token issued for 2 minutes is refreshed after 1, not at once).
   */
  isDue(row: Pick<ConnectionsTable, "access_expires_at" | "last_refreshed_at" | "created_at">): boolean {
    if (row.access_expires_at === null) return false;
    const lifetime = row.access_expires_at - (row.last_refreshed_at ?? row.created_at);
    const margin = Math.min(this.deps.settings.skewMs, Math.max(0, lifetime / 2));
    return row.access_expires_at - margin <= this.deps.clock.now();
  }

  /**
   * The row's access token, refreshed first when due (or when `force`: the provider refused it), for the gateway
   * request `requestId`. A refresh it starts carries that id to the authorization server; one under way already, which
   * it waits for, carries the id of the request that started it.
   */
  accessToken(row: ConnectionsTable, requestId: string, force = false): Promise<string> {
    if (!force && !this.isDue(row) && row.access_token)
      return Promise.resolve(this.deps.secretBox.open(row.access_token));
    const refresh = this.inFlight.get(row.id) ?? this.startRefresh(row, requestId);
    return this.waitFor(refresh, row.provider_id);
  }

  private startRefresh(row: ConnectionsTable, requestId: string): Refresh {
    const promise = this.refreshOnce(row.id, row.provider_id, row.token_version, requestId).finally(() =>
      this.inFlight.delete(row.id),
    );
    const refresh: Refresh = { promise, waiting: 0 };
    // Its outcome is each waiting call's; when every call has stopped waiting, the log hears a failure instead.
    promise.catch((err: unknown) => {
      if (refresh.waiting === 0) {
        this.deps.log?.warn(
          { err, provider: row.provider_id, account_id: row.account_id, connection_id: row.id },
          "a token refresh no call waited for any more failed",
        );
      }
    });
    this.inFlight.set(row.id, refresh);
    return refresh;
  }

  /**
   * For a stopping node: starts no refresh from now on, and resolves once those under way have ended. A refresh this
   * node holds the lease of goes on to its answer (see the file's comment); one waiting for another node's lease
   * gives up at once, since taking the lease now could start a token request the node would not live to hear.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.allSettled([...this.inFlight.values()].map((refresh) => refresh.promise));
  }

  private waitFor(refresh: Refresh, providerId: string): Promise<string> {
    const { waitMs } = this.deps.settings;
    refresh.waiting++;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const message = `The ${providerId} provider's authorization server has not refreshed the access token within ${waitMs / 1000} s: the call was not made. The refresh goes on; retry the call.`;
        reject(new GatewayError("provider_unavailable", message, { provider: providerId, notExecuted: true }));
      }, waitMs);
    });
    return Promise.race([refresh.promise, late]).finally(() => {
      clearTimeout(timer);
      refresh.waiting--;
    });
  }

  private async refreshOnce(
    connectionId: string,
    providerId: string,
    seenVersion: number,
    requestId: string,
  ): Promise<string> {
    const { db, clock } = this.deps;
    const owner = `${this.node}.${randomBase62(8)}`;
    // The authorization server's metadata first, before any lease: reading it takes up to the upstream timeout, and
    // the lease must cover the token request alone.
    await this.deps.oauthClient(providerId)?.server();
    // Past another node's lease, so that a node that died holding it is taken over.
    const deadline = performance.now() + this.deps.settings.leaseMs + 5_000;
    for (;;) {
      if (this.stopping) throw stopped(providerId);
      const now = clock.now();
      const taken = await db
        .updateTable("connections")
        .set({ refresh_lock_owner: owner, refresh_lock_until: now + this.deps.settings.leaseMs })
        .where("id", "=", connectionId)
        .where("status", "=", "active")
        .where("token_version", "=", seenVersion)
        .where((eb) => eb.or([eb("refresh_lock_until", "is", null), eb("refresh_lock_until", "<", now)]))
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 1) return this.refreshAsOwner(connectionId, providerId, owner, requestId);

      const row = await db.selectFrom("connections").selectAll().where("id", "=", connectionId).executeTakeFirst();
      if (!row || row.status === "deleted") throw noConnection(connectionId, providerId);
      if (row.status === "needs_reauth") throw needsReauth(providerId);
      if (row.token_version !== seenVersion && row.access_token) return this.deps.secretBox.open(row.access_token);
      if (performance.now() > deadline) throw notFinished(providerId);
      await sleep(20);
    }
  }

  private async refreshAsOwner(
    connectionId: string,
    providerId: string,
    owner: string,
    requestId: string,
  ): Promise<string> {
    const { db, clock, secretBox } = this.deps;
    const release = () =>
      db
        .updateTable("connections")
        .set({ refresh_lock_owner: null, refresh_lock_until: null })
        .where("id", "=", connectionId)
        .where("refresh_lock_owner", "=", owner)
        .execute();
    const row = await db.selectFrom("connections").selectAll().where("id", "=", connectionId).executeTakeFirstOrThrow();
    const client = this.deps.oauthClient(providerId);
    if (!client) {
      await release();
      throw new GatewayError("internal_error", `The ${providerId} provider has no OAuth configuration`);
    }
    if (!row.refresh_token) {
      await this.deps.markNeedsReauth(connectionId, owner);
      throw needsReauth(providerId);
    }
    let tokens: TokenSet;
    try {
      const refreshToken = secretBox.open(row.refresh_token);
      tokens = await client.refresh(refreshToken, () => clock.now(), this.deps.settings.requestMs, requestId);
    } catch (error) {
      if (error instanceof RefreshRefused) {
        this.deps.log?.warn(
          { err: error, provider: providerId, account_id: row.account_id, connection_id: connectionId },
          "the provider refused a token refresh: the connection needs the end user to authorise it again",
        );
        await this.deps.markNeedsReauth(connectionId, owner);
        throw needsReauth(providerId);
      }
      await release();
      throw error;
    }
    const stored = await this.store(connectionId, owner, tokens, clock.now()).catch(async (error: unknown) => {
      // The store failed to take them (unreachable, say): the lease goes, so that a later call can try again.
      await release().catch(() => {});
      throw error;
    });
    if (Number(stored.numUpdatedRows) !== 1) {
      const current = await db
        .selectFrom("connections")
        .select("status")
        .where("id", "=", connectionId)
        .executeTakeFirst();
      // Deleted (or refused elsewhere) while we refreshed: the new grant must not outlive the connection.
      if (current?.status !== "active") {
        await client.revoke(tokens.refreshToken ?? tokens.accessToken, requestId);
        throw current?.status === "needs_reauth" ? needsReauth(providerId) : noConnection(connectionId, providerId);
      }
      // The lease ran out before the store answered: another node refreshes now; leave the grant to it.
      throw notFinished(providerId);
    }
    return tokens.accessToken;
  }

  /** Writes the new tokens and frees the lease, if `owner` still holds it on a live connection. */
  private store(connectionId: string, owner: string, tokens: TokenSet, now: number) {
    const { secretBox } = this.deps;
    return this.deps.db
      .updateTable("connections")
      .set((eb) => ({
        access_token: secretBox.seal(tokens.accessToken),
        // A server that does not rotate keeps the old refresh token valid (RFC 6749 §6): the column keeps it as it
        // is now, not as it was read before the token request (a master-key re-seal may have sealed it anew since).
        ...(tokens.refreshToken && { refresh_token: secretBox.seal(tokens.refreshToken) }),
        access_expires_at: tokens.expiresAt,
        ...(tokens.scopes.length > 0 && { scopes: JSON.stringify(tokens.scopes) }),
        token_version: eb("token_version", "+", 1),
        refresh_lock_owner: null,
        refresh_lock_until: null,
        last_refreshed_at: now,
        updated_at: now,
      }))
      .where("id", "=", connectionId)
      .where("refresh_lock_owner", "=", owner)
      .where("status", "=", "active")
      .executeTakeFirst();
  }
}
