// Sign-in throttling: failed attempts counted per email and per client address in fixed windows, in the store so
// that every node sees them. Past the limit, sign-in answers 429 until the window ends, whatever the password.
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
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly limits: ThrottleLimits = defaultThrottleLimits,
  ) {}

  /** Throws 429 when the email or the address has used up its failures for the current window. */
  async check(email: string, address: string): Promise<void> {
    const now = this.clock.now();
    const rows = await this.db
      .selectFrom("console_login_failures")
      .selectAll()
      .where("key", "in", [emailKey(email), addressKey(address)])
      .where("window_start", ">", now - this.limits.windowMs)
      .execute();
    for (const row of rows) {
      const limit = row.key.startsWith("email:") ? this.limits.perEmail : this.limits.perAddress;
      if (row.failures < limit) continue;
      const seconds = Math.max(1, Math.ceil((row.window_start + this.limits.windowMs - now) / 1000));
      throw new GatewayError("rate_limited", "Too many failed sign-ins; wait before trying again", {
        retryAfterSeconds: seconds,
      });
    }
  }

  async fail(email: string, address: string): Promise<void> {
    const now = this.clock.now();
    const stale = now - this.limits.windowMs;
    for (const key of [emailKey(email), addressKey(address)]) {
      await this.db
        .insertInto("console_login_failures")
        .values({ key, window_start: now, failures: 1 })
        .onConflict((oc) =>
          oc.column("key").doUpdateSet({
            failures: sql`CASE WHEN console_login_failures.window_start <= ${stale} THEN 1 ELSE console_login_failures.failures + 1 END`,
            window_start: sql`CASE WHEN console_login_failures.window_start <= ${stale} THEN ${now} ELSE console_login_failures.window_start END`,
          }),
        )
        .execute();
    }
  }

  /** A successful sign-in clears the email's failures (not the address's: one address may try many emails). */
  async succeed(email: string): Promise<void> {
    await this.db.deleteFrom("console_login_failures").where("key", "=", emailKey(email)).execute();
  }
}
