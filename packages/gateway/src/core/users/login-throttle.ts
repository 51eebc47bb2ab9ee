// Sign-in throttling: attempts counted per email and per client address in fixed windows, in the store so that every
// node sees them; an attempt that succeeds is given back. Past the limit, sign-in answers 429 until the window ends,
// whatever the password. Anyone can send sign-ins, each with a new email: the address is counted first, so that one
// refused adds no row for its email, and rows of ended windows are deleted, so that the table holds the current ones.
import { createHash } from "node:crypto";
import { type Kysely, sql } from "kysely";
import type { Database } from "../../store/schema.ts";
import type { Clock } from "../clock.ts";
import { GatewayError } from "../errors.ts";
import { normaliseEmail } from "./users.ts";

export interface ThrottleLimits {
  perEmail: number;
  perAddress: number;
  windowMs: number;
}

export const defaultThrottleLimits: ThrottleLimits = { perEmail: 5, perAddress: 30, windowMs: 15 * 60_000 };

const emailKey = (email: string) => `email:${createHash("sha256").update(normaliseEmail(email)).digest("hex")}`;
const addressKey = (address: string) => `ip:${address}`;

export class LoginThrottle {
  private lastPurge = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly limits: ThrottleLimits = defaultThrottleLimits,
  ) {}

  /**
   * Counts a sign-in attempt against the email and the address before its password is checked, so that attempts sent
   * at once are each counted (counted after the check, a burst passed it all before the first failure was written);
   * throws 429 when either has used up its attempts for the current window. A sign-in that succeeds gives its
   * attempt back (succeed).
   */
  async attempt(email: string, address: string): Promise<void> {
    const now = this.clock.now();
    const stale = now - this.limits.windowMs;
    // A row whose window has ended counts as absent (the upsert below starts it over): deleting it changes nothing.
    if (now - this.lastPurge >= this.limits.windowMs) {
      this.lastPurge = now;
      await this.db.deleteFrom("console_login_failures").where("window_start", "<=", stale).execute();
    }
    const counted: [string, number][] = [
      [addressKey(address), this.limits.perAddress],
      [emailKey(email), this.limits.perEmail],
    ];
    for (const [key, limit] of counted) {
      const row = await this.db
        .insertInto("console_login_failures")
        .values({ key, window_start: now, failures: 1 })
        .onConflict((oc) =>
          oc.column("key").doUpdateSet({
            failures: sql`CASE WHEN console_login_failures.window_start <= ${stale} THEN 1 ELSE console_login_failures.failures + 1 END`,
            window_start: sql`CASE WHEN console_login_failures.window_start <= ${stale} THEN ${now} ELSE console_login_failures.window_start END`,
          }),
        )
        .returning(["failures", "window_start"])
        .executeTakeFirstOrThrow();
      if (row.failures <= limit) continue;
      const seconds = Math.max(1, Math.ceil((row.window_start + this.limits.windowMs - now) / 1000));
      throw new GatewayError("rate_limited", "Too many failed sign-ins; wait before trying again", {
        retryAfterSeconds: seconds,
      });
    }
  }

  /**
   * A successful sign-in clears the email's failures, and gives its attempt back to the address (whose other failures
   * stay: one address may try many emails).
   */
  async succeed(email: string, address: string): Promise<void> {
    await this.db.deleteFrom("console_login_failures").where("key", "=", emailKey(email)).execute();
    await this.db
      .updateTable("console_login_failures")
      .set({ failures: sql`failures - 1` })
      .where("key", "=", addressKey(address))
      .where("failures", ">", 0)
      .execute();
  }
}
