// Connect sessions: the hosted, single-use, 30-minute flow that creates a connection. The token in connect_url is
// stored only as a hash; starting the flow binds it to the browser (a cookie of the session's own), a fresh `state`
// and a PKCE verifier (sealed); the callback is accepted once, from that browser, and either creates the connection
// or fails the session.
import { setTimeout as sleep } from "node:timers/promises";
import type { Kysely } from "kysely";
import * as oauth from "oauth4webapi";
import { purgeInBatches, rowsByTime, type Stopping } from "../../store/batched-purge.ts";
import type { ConnectSessionsTable, Database } from "../../store/schema.ts";
import type { Clock } from "../clock.ts";
import type { MasterKeyWatch } from "../crypto/master-key-watch.ts";
import { SealedValueDoesNotOpen, type SecretBox } from "../crypto/secret-box.ts";
import { type BrokenRule, brokenRuleError, GatewayError } from "../errors.ts";
import { randomBase62 } from "../ids.ts";
import { printable } from "../printable.ts";
import type { Connections } from "./connections.ts";
import { AuthorizationDenied, type ProviderOAuthClient, type TokenSet } from "./oauth-client.ts";
import {
  type ConnectFailed,
  type ConnectFailure,
  claimCallback,
  failSession,
  hash,
  insertConnectSession,
  sessionByState,
  sessionByToken,
} from "./session-rows.ts";

export { connectSessionTtlMs, insertConnectSession } from "./session-rows.ts";
export type { ConnectFailure };

/** How often a completed flow tries to record its connection against others finishing at the same moment. */
const maxConnectAttempts = 50;

export type ConnectOutcome = { ok: true; session: ConnectSessionsTable; replaced: boolean } | ConnectFailed;

export interface ConnectSessionDeps {
  db: Kysely<Database>;
  clock: Clock;
  secretBox: SecretBox;
  /** Whether this node's master keys still open the store's secrets (core/crypto/master-key-watch.ts). */
  masterKeys?: Pick<MasterKeyWatch, "check"> | undefined;
  publicUrl: string;
  connections: Connections;
  oauthClient(providerId: string): ProviderOAuthClient | undefined;
}

const sameBrowser = (session: ConnectSessionsTable, binding: string | undefined) =>
  binding !== undefined && hash(binding) === session.browser_hash;

/** The broken rule of naming a provider that has no connections (create_connect_session's check says it too). */
export function withoutConnections(connections: Connections, providerId: string): BrokenRule | undefined {
  if (connections.supports(providerId)) return undefined;
  return {
    message: `There is no provider "${printable(providerId)}" with connections`,
    problems: [{ path: "/provider_id", message: "is not a provider with credentials operations" }],
  };
}

/** How long a session is kept once its link expired: its link says "expired" (410) until then, "not valid" (404) after. */
export const connectSessionRetentionMs = 7 * 24 * 60 * 60_000;

export class ConnectSessions {
  constructor(private readonly deps: ConnectSessionDeps) {}

  /**
   * Deletes the sessions past their retention, a batch at a time, until none is left or `stopping` says so; answers
   * how many went. Every session ends within its link's 30 minutes, so the table holds what a link can still be asked
   * about. Each node runs it at start and every hour (createConnectionServices).
   */
  purgeExpired(stopping?: Stopping): Promise<number> {
    const cutoff = this.deps.clock.now() - connectSessionRetentionMs;
    return purgeInBatches(rowsByTime(this.deps.db, "connect_sessions", "expires_at"), cutoff, stopping);
  }

  async create(input: { accountId: string; providerId: string; externalRef: string }) {
    const unsupported = withoutConnections(this.deps.connections, input.providerId);
    if (unsupported) throw brokenRuleError(unsupported);
    const { token, expiresAt } = await insertConnectSession(this.deps.db, this.deps.clock, input);
    return {
      token,
      connect_url: `${this.deps.publicUrl}/connect/${token}`,
      expires_at: new Date(expiresAt).toISOString(),
    };
  }

  /**
   * The session behind a connect_url token, and whether it can still start (or restart, from the same browser).
   * `bindingOf` answers the binding the browser holds for a session (its cookie for that session).
   */
  async open(
    token: string,
    bindingOf: (session: ConnectSessionsTable) => string | undefined,
  ): Promise<ConnectFailed | { ok: "open"; session: ConnectSessionsTable }> {
    const session = await sessionByToken(this.deps.db, token);
    if (!session) return { ok: false, failure: "unknown_link", session };
    if (session.status !== "pending" && session.status !== "started") {
      // A flow that ended because the link expired at its callback is an expired link, not a used one.
      const failure = session.status === "failed" && session.failure === "expired" ? "expired" : "already_used";
      return { ok: false, failure, session };
    }
    if (session.expires_at <= this.deps.clock.now()) return { ok: false, failure: "expired", session };
    if (session.status === "started" && !sameBrowser(session, bindingOf(session))) {
      return { ok: false, failure: "other_browser", session };
    }
    return { ok: "open", session };
  }

  /**
   * Starts (or restarts) the authorization: answers the provider's authorization URL and the browser binding, a new
   * one unless `binding` is given. A started session restarts only with its own binding. Answers undefined when the
   * session changed meanwhile (another Continue of it won): `open` then tells where it stands.
   */
  async start(
    session: ConnectSessionsTable,
    binding: string | undefined,
  ): Promise<{ authorizationUrl: URL; browser: string } | undefined> {
    if (session.status === "started" && !sameBrowser(session, binding)) return undefined;
    const client = this.client(session.provider_id);
    const browser = binding ?? randomBase62(32);
    const state = oauth.generateRandomState();
    const verifier = oauth.generateRandomCodeVerifier();
    const authorizationUrl = await client.authorizationUrl(state, verifier);
    const sealed = {
      state_hash: hash(state),
      code_verifier: this.deps.secretBox.seal(verifier),
      browser_hash: hash(browser),
    };
    const started = await this.deps.db
      .updateTable("connect_sessions")
      .set({ status: "started", ...sealed })
      .where("id", "=", session.id)
      .where("status", "=", session.status)
      .where((eb) =>
        session.state_hash === null ? eb("state_hash", "is", null) : eb("state_hash", "=", session.state_hash),
      )
      .executeTakeFirst();
    if (Number(started.numUpdatedRows) !== 1) return undefined;
    return { authorizationUrl, browser };
  }

  /**
   * A sealed value (the session's PKCE verifier, the token of the connection it would replace), opened, or undefined
   * when it does not open and the store's records accept this node's keys (altered); throws this node's refusal when
   * they refuse them, and the store's error when it cannot say (nothing is done then either: the same callback
   * through a node that holds the key, or again once the store answers, completes the flow).
   */
  private async openedUnlessRefused(sealed: string): Promise<string | undefined> {
    try {
      return this.deps.secretBox.open(sealed);
    } catch (error) {
      if (!(error instanceof SealedValueDoesNotOpen)) return undefined;
      const refusal = await this.deps.masterKeys?.check();
      if (refusal) throw refusal;
      return undefined;
    }
  }

  /**
   * Handles the provider's redirect back: at most once per session, only from the browser that started it. The calls
   * to the authorization server carry `requestId`, the gateway request of the redirect.
   */
  async complete(
    callback: URL,
    bindingOf: (session: ConnectSessionsTable) => string | undefined,
    requestId: string,
  ): Promise<ConnectOutcome> {
    const { db, clock } = this.deps;
    const state = callback.searchParams.get("state");
    const session = state ? await sessionByState(db, state) : undefined;
    if (!state || !session) return { ok: false, failure: "unknown_link", session: undefined };
    if (session.status !== "started") return { ok: false, failure: "already_used", session };
    // The binding cookie lives as long as the link: past it, the browser that started comes back without it, and the
    // flow has expired whichever browser comes back.
    const expired = session.expires_at <= clock.now();
    if (!expired && !sameBrowser(session, bindingOf(session))) return { ok: false, failure: "other_browser", session };
    // Opened before the callback is claimed: a node whose keys the store's records refuse (a rotation moved the store
    // to a key it lacks) leaves the session as it is, for the browser to come back through a node that holds the key.
    // So is the token of the connection the flow would replace: its grant is revoked once the new one is committed,
    // when nothing could be undone, and on such a node it would be left live at the provider.
    const verifier = expired ? undefined : await this.openedUnlessRefused(session.code_verifier ?? "");
    if (!expired) {
      const replaceable = await this.deps.connections.replaceableGrant({
        accountId: session.account_id,
        providerId: session.provider_id,
        externalRef: session.external_ref,
      });
      if (replaceable !== undefined) await this.openedUnlessRefused(replaceable);
    }
    if (!(await claimCallback(db, session, state))) return { ok: false, failure: "already_used", session };
    if (expired) return failSession(db, clock, session, "expired");

    const client = this.client(session.provider_id);
    let tokens: TokenSet;
    try {
      // One that did not open (altered) fails the session here, as the provider's error.
      const opened = verifier ?? this.deps.secretBox.open(session.code_verifier ?? "");
      tokens = await client.exchangeCode(callback, state, opened, () => clock.now(), requestId);
    } catch (error) {
      if (error instanceof AuthorizationDenied) {
        if (error.error === "access_denied") return failSession(db, clock, session, "denied");
        return { ...(await failSession(db, clock, session, "provider_error")), cause: error };
      }
      const unavailable = error instanceof GatewayError && error.code === "provider_unavailable";
      await failSession(db, clock, session, unavailable ? "provider_unavailable" : "provider_error");
      if (unavailable) return { ok: false, failure: "provider_unavailable", session, cause: error.cause ?? error };
      throw error;
    }
    let replaced: Awaited<ReturnType<Connections["create"]>>["replaced"];
    try {
      replaced = (await this.createConnection(session, tokens)).replaced;
    } catch (error) {
      // No connection holds the new grant: end it at the provider rather than leave it live.
      await client.revoke(tokens.refreshToken ?? tokens.accessToken, requestId);
      await failSession(db, clock, session, "provider_error");
      throw error;
    }
    // The replaced connection's grant is of no further use; a provider that does not answer keeps it until expiry.
    if (replaced) await this.deps.connections.revokeAtProvider(replaced, requestId);
    return { ok: true, session, replaced: replaced !== undefined };
  }

  private client(providerId: string): ProviderOAuthClient {
    const client = this.deps.oauthClient(providerId);
    if (!client) throw new GatewayError("internal_error", `The ${providerId} provider has no OAuth configuration`);
    return client;
  }

  private async createConnection(session: ConnectSessionsTable, tokens: TokenSet) {
    const run = () =>
      this.deps.db.transaction().execute(async (trx) => {
        const result = await this.deps.connections.create(trx, {
          accountId: session.account_id,
          providerId: session.provider_id,
          externalRef: session.external_ref,
          tokens,
        });
        await trx
          .updateTable("connect_sessions")
          .set({
            status: "completed",
            connection_id: result.connection.id,
            code_verifier: null,
            finished_at: this.deps.clock.now(),
          })
          .where("id", "=", session.id)
          .execute();
        return result;
      });
    // Flows for one external_ref finishing together: the unique index of live connections refuses all but one of
    // them; each refused one runs again, after a short random pause that spreads them out, to replace the connection
    // that got there first, as a later connect does. With n at once, the last may be refused n − 1 times.
    for (let attempt = 1; ; attempt++) {
      try {
        return await run();
      } catch (error) {
        if (attempt >= maxConnectAttempts) throw error;
        await sleep(Math.random() * 5 * Math.min(attempt, 10));
      }
    }
  }
}
