// Console sessions: a random cookie value (stored only as a hash) bound to one user and account, with a CSRF token,
// an idle timeout and an absolute lifetime.
import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import type { ConsoleSessionsTable, Database } from "../../store/schema.ts";
import type { Clock } from "../clock.ts";
import { newId, randomBase62 } from "../ids.ts";
import type { ConsoleUser } from "./users.ts";

export interface ConsoleSession {
  id: string;
  userId: string;
  accountId: string;
  csrfToken: string;
  expiresAt: number;
  /** Set when this read moved the idle deadline forward: the cookie's Max-Age, in ms, that now matches it. */
  renewedForMs?: number;
}

export const sessionIdleMs = 12 * 3600 * 1000;
export const sessionLifetimeMs = 7 * 24 * 3600 * 1000;
const touchIntervalMs = 60_000;
const tokenPattern = /^[0-9A-Za-z]{43}$/;
const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

const toSession = (row: ConsoleSessionsTable): ConsoleSession => ({
  id: row.id,
  userId: row.user_id,
  accountId: row.account_id,
  csrfToken: row.csrf_token,
  expiresAt: row.expires_at,
});

export class Sessions {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  async create(user: ConsoleUser): Promise<{ token: string; session: ConsoleSession }> {
    const now = this.clock.now();
    const token = randomBase62(43);
    const row: ConsoleSessionsTable = {
      id: newId("ses", 16),
      token_hash: hashToken(token),
      user_id: user.id,
      account_id: user.account_id,
      csrf_token: randomBase62(32),
      created_at: now,
      last_seen_at: now,
      expires_at: now + sessionIdleMs,
    };
    await this.db.insertInto("console_sessions").values(row).execute();
    // Sign-ins are rare: a good moment to forget sessions that ended.
    await this.db.deleteFrom("console_sessions").where("expires_at", "<=", now).execute();
    return { token, session: toSession(row) };
  }

  /** The live session of a cookie value, its idle timeout pushed forward; undefined when unknown or ended. */
  async resolve(token: string | undefined): Promise<ConsoleSession | undefined> {
    if (token === undefined || !tokenPattern.test(token)) return undefined;
    const row = await this.db
      .selectFrom("console_sessions")
      .selectAll()
      .where("token_hash", "=", hashToken(token))
      .executeTakeFirst();
    const now = this.clock.now();
    if (!row || row.expires_at <= now) return undefined;
    if (now - row.last_seen_at >= touchIntervalMs) {
      row.last_seen_at = now;
      row.expires_at = Math.min(row.created_at + sessionLifetimeMs, now + sessionIdleMs);
      await this.db
        .updateTable("console_sessions")
        .set({ last_seen_at: row.last_seen_at, expires_at: row.expires_at })
        .where("id", "=", row.id)
        .execute();
      return { ...toSession(row), renewedForMs: row.expires_at - now };
    }
    return toSession(row);
  }

  async revoke(sessionId: string): Promise<void> {
    await this.db.deleteFrom("console_sessions").where("id", "=", sessionId).execute();
  }
}
