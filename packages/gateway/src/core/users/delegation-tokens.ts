// Delegation tokens: `gwd_…`, minted for a signed-in console user, valid 10 minutes and while the console session
// that minted it lives, carrying the user's account, a scope subset and optionally a connection (so that the browser
// never holds a connection id). Stored as a hash; accepted wherever an API key is.
import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../../store/schema.ts";
import { type Principal, unauthorized } from "../api-keys.ts";
import type { Clock } from "../clock.ts";
import { newId, randomBase62 } from "../ids.ts";

export const delegationTtlMs = 10 * 60_000;
const tokenPattern = /^gwd_[0-9A-Za-z]{40}$/;
const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

export interface MintInput {
  accountId: string;
  userId: string;
  /** The minting console session: signing out (or anything else that ends it) ends the token too. */
  sessionId: string;
  scopes: string[];
  connectionId?: string | undefined;
}

export interface MintedToken {
  id: string;
  token: string;
  scopes: string[];
  expiresAt: number;
}

export class DelegationTokens {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  async mint(input: MintInput): Promise<MintedToken> {
    const now = this.clock.now();
    const token = `gwd_${randomBase62(40)}`;
    const minted = { id: newId("dlg", 16), token, scopes: input.scopes, expiresAt: now + delegationTtlMs };
    await this.db.deleteFrom("delegation_tokens").where("expires_at", "<=", now).execute();
    await this.db
      .insertInto("delegation_tokens")
      .values({
        id: minted.id,
        token_hash: hashToken(token),
        account_id: input.accountId,
        user_id: input.userId,
        scopes: JSON.stringify(input.scopes),
        connection_id: input.connectionId ?? null,
        session_id: input.sessionId,
        created_at: now,
        expires_at: minted.expiresAt,
      })
      .execute();
    return minted;
  }

  /** A token resolver for the /v1 authenticator: claims `gwd_` tokens, leaves anything else to the next one. */
  readonly resolve = (token: string): Promise<Principal> | undefined =>
    token.startsWith("gwd_") ? this.authenticate(token) : undefined;

  private async authenticate(token: string): Promise<Principal> {
    if (!tokenPattern.test(token)) throw unauthorized("The delegation token is malformed");
    const row = await this.db
      .selectFrom("delegation_tokens")
      .leftJoin("console_sessions", "console_sessions.id", "delegation_tokens.session_id")
      .select([
        "delegation_tokens.id",
        "delegation_tokens.account_id",
        "delegation_tokens.scopes",
        "delegation_tokens.connection_id",
        "delegation_tokens.user_id",
        "delegation_tokens.expires_at",
        "console_sessions.expires_at as session_expires_at",
      ])
      .where("delegation_tokens.token_hash", "=", hashToken(token))
      .executeTakeFirst();
    if (!row) throw unauthorized("The delegation token is not valid");
    const now = this.clock.now();
    if (row.expires_at <= now) throw unauthorized("The delegation token has expired; the console mints a new one");
    if (row.session_expires_at === null || row.session_expires_at <= now) {
      throw unauthorized("The console session that minted this delegation token has ended; sign in again");
    }
    return {
      kind: "delegation",
      accountId: row.account_id,
      keyId: row.id,
      scopes: JSON.parse(row.scopes) as string[],
      rateLimit: null,
      expiresAt: row.expires_at,
      callerId: `console-user:${row.user_id}`,
      ...(row.connection_id !== null && { connectionId: row.connection_id }),
    };
  }
}
