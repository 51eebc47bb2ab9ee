// Storage of connect sessions: the token of connect_url, the OAuth state and the browser cookie are kept only as
// SHA-256 hashes (a leaked table starts no flow), the PKCE verifier sealed, and every state change conditional.
import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import type { ConnectSessionsTable, Database } from "../../store/schema.ts";
import type { Clock } from "../clock.ts";
import { newId, randomBase62 } from "../ids.ts";

export const connectSessionTtlMs = 30 * 60_000;
const tokenPattern = /^cst_[0-9A-Za-z]{32}$/;
export const hash = (value: string) => createHash("sha256").update(value).digest("hex");

/** Why a flow ended without a connection; the connect page explains each to the end user. */
export type ConnectFailure =
  | "unknown_link"
  | "expired"
  | "already_used"
  | "other_browser"
  | "denied"
  | "provider_error"
  | "provider_unavailable";

export type ConnectFailed = {
  ok: false;
  failure: ConnectFailure;
  session: ConnectSessionsTable | undefined;
  /** For a provider's failure: what it answered, or why it could not be reached (for the log, never the page). */
  cause?: unknown;
};

/** Stores a new pending session; answers its token (shown once, in connect_url) and its expiry. */
export async function insertConnectSession(
  db: Kysely<Database>,
  clock: Clock,
  input: { accountId: string; providerId: string; externalRef: string },
): Promise<{ token: string; expiresAt: number }> {
  const token = `cst_${randomBase62(32)}`;
  const now = clock.now();
  const expiresAt = now + connectSessionTtlMs;
  await db
    .insertInto("connect_sessions")
    .values({
      id: newId("cs", 16),
      token_hash: hash(token),
      account_id: input.accountId,
      provider_id: input.providerId,
      external_ref: input.externalRef,
      status: "pending",
      state_hash: null,
      code_verifier: null,
      browser_hash: null,
      failure: null,
      connection_id: null,
      created_at: now,
      expires_at: expiresAt,
      finished_at: null,
    })
    .execute();
  return { token, expiresAt };
}

export const sessionByToken = (db: Kysely<Database>, token: string) =>
  tokenPattern.test(token)
    ? db.selectFrom("connect_sessions").selectAll().where("token_hash", "=", hash(token)).executeTakeFirst()
    : Promise.resolve(undefined);

export const sessionByState = (db: Kysely<Database>, state: string) =>
  db.selectFrom("connect_sessions").selectAll().where("state_hash", "=", hash(state)).executeTakeFirst();

/** Moves a started session to `completing` unless another request did first: a callback is handled once. */
export async function claimCallback(db: Kysely<Database>, session: ConnectSessionsTable, state: string) {
  const claimed = await db
    .updateTable("connect_sessions")
    .set({ status: "completing" })
    .where("id", "=", session.id)
    .where("status", "=", "started")
    .where("state_hash", "=", hash(state))
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}

export async function failSession(
  db: Kysely<Database>,
  clock: Clock,
  session: ConnectSessionsTable,
  failure: ConnectFailure,
): Promise<ConnectFailed> {
  await db
    .updateTable("connect_sessions")
    .set({ status: "failed", failure, code_verifier: null, finished_at: clock.now() })
    .where("id", "=", session.id)
    .execute();
  return { ok: false, failure, session };
}
