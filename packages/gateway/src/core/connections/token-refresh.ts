// Fresh access tokens for calls. A token due to expire is refreshed by exactly one caller across every gateway node:
// calls on one node share one promise, and nodes compete through a compare-and-set lease on the connection row
// (token_version unchanged and no live lease → take the lease). Losers wait for the winner's new token_version.
// A refresh the provider refuses (invalid_grant) turns the connection to needs_reauth.
import { setTimeout as sleep } from "node:timers/promises";
import type { Kysely } from "kysely";
import type { ConnectionsTable, Database } from "../../store/schema.ts";
import type { Clock } from "../clock.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import { GatewayError, notFound } from "../errors.ts";
import { randomBase62 } from "../ids.ts";
import { type ProviderOAuthClient, RefreshRefused } from "./oauth-client.ts";

export interface RefreshSettings {
  /** Refresh when the access token expires within this margin (default 60 s). */
  skewMs: number;
  /** How long a node may hold the refresh lease before another may take over (default 20 s: twice a token request's timeout). */
  leaseMs: number;
  /** How long a caller waits (real time) for another node's refresh before giving up (default 25 s, past a lease). */
  waitMs: number;
}

export const defaultRefreshSettings: RefreshSettings = { skewMs: 60_000, leaseMs: 20_000, waitMs: 25_000 };

export const noConnection = (connectionId: string, providerId: string) =>
  notFound(`No connection ${connectionId} for the ${providerId} provider`);

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
}

export class TokenRefresher {
  private readonly inFlight = new Map<string, Promise<string>>();
  private readonly node = randomBase62(10);

  constructor(private readonly deps: RefresherDeps) {}

  isDue(row: Pick<ConnectionsTable, "access_expires_at">): boolean {
    return row.access_expires_at !== null && row.access_expires_at - this.deps.settings.skewMs <= this.deps.clock.now();
  }

  /** The row's access token, refreshed first when due (or when `force`: the provider refused it). */
  accessToken(row: ConnectionsTable, force = false): Promise<string> {
    if (!force && !this.isDue(row) && row.access_token)
      return Promise.resolve(this.deps.secretBox.open(row.access_token));
    const running = this.inFlight.get(row.id);
    if (running) return running;
    const refresh = this.refreshOnce(row.id, row.provider_id, row.token_version).finally(() =>
      this.inFlight.delete(row.id),
    );
    this.inFlight.set(row.id, refresh);
    return refresh;
  }

  private async refreshOnce(connectionId: string, providerId: string, seenVersion: number): Promise<string> {
    const { db, clock } = this.deps;
    const owner = `${this.node}.${randomBase62(8)}`;
    const deadline = performance.now() + this.deps.settings.waitMs;
    for (;;) {
      const now = clock.now();
      const taken = await db
        .updateTable("connections")
        .set({ refresh_lock_owner: owner, refresh_lock_until: now + this.deps.settings.leaseMs })
        .where("id", "=", connectionId)
        .where("status", "=", "active")
        .where("token_version", "=", seenVersion)
        .where((eb) => eb.or([eb("refresh_lock_until", "is", null), eb("refresh_lock_until", "<", now)]))
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 1) return this.refreshAsOwner(connectionId, providerId, owner);

      const row = await db.selectFrom("connections").selectAll().where("id", "=", connectionId).executeTakeFirst();
      if (!row || row.status === "deleted") throw noConnection(connectionId, providerId);
      if (row.status === "needs_reauth") throw needsReauth(providerId);
      if (row.token_version !== seenVersion && row.access_token) return this.deps.secretBox.open(row.access_token);
      if (performance.now() > deadline) {
        throw new GatewayError("provider_unavailable", `The ${providerId} token refresh did not finish in time`, {
          provider: providerId,
        });
      }
      await sleep(20);
    }
  }

  private async refreshAsOwner(connectionId: string, providerId: string, owner: string): Promise<string> {
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
    let tokens: Awaited<ReturnType<ProviderOAuthClient["refresh"]>>;
    try {
      tokens = await client.refresh(secretBox.open(row.refresh_token), clock.now());
    } catch (error) {
      if (error instanceof RefreshRefused) {
        await this.deps.markNeedsReauth(connectionId, owner);
        throw needsReauth(providerId);
      }
      await release();
      throw error;
    }
    const now = clock.now();
    const stored = await db
      .updateTable("connections")
      .set((eb) => ({
        access_token: secretBox.seal(tokens.accessToken),
        // A server that does not rotate keeps the old refresh token valid (RFC 6749 §6).
        refresh_token: tokens.refreshToken ? secretBox.seal(tokens.refreshToken) : row.refresh_token,
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
    // Deleted while we refreshed: the new grant must not outlive the connection.
    if (Number(stored.numUpdatedRows) !== 1) {
      await client.revoke(tokens.refreshToken ?? tokens.accessToken);
      throw noConnection(connectionId, providerId);
    }
    return tokens.accessToken;
  }
}
