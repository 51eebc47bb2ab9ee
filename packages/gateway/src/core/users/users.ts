// Console users: people of an account who sign in to the console with an email and a password. Every user of an
// account may do everything the account may (there are no roles).
import type { Kysely } from "kysely";
import type { ConsoleUsersTable, Database } from "../../store/schema.ts";
import type { Clock } from "../clock.ts";
import { conflict, invalidRequest, notFound } from "../errors.ts";
import { newId } from "../ids.ts";
import { printable } from "../printable.ts";
import { checkPassword, hashPassword, verifyDecoy, verifyPassword } from "./passwords.ts";

export interface ConsoleUser {
  id: string;
  account_id: string;
  email: string;
  created_at: number;
  last_sign_in_at: number | null;
}

// No spaces, no control characters and no format characters (an email is printed as it is, by `users list` too: a
// bidirectional override would reorder the line it is on, and a zero-width space would make two emails look alike).
const emailPattern = /^[^\s@\p{Cc}\p{Cf}]+@[^\s@\p{Cc}\p{Cf}]+\.[^\s@\p{Cc}\p{Cf}]+$/u;
/**
 * An email as compared and stored: trimmed, in lower case and in Unicode NFC, so that ガ typed as one code point or as
 * カ and a combining mark is one email (passwords are normalised too, in passwords.ts).
 */
export const normaliseEmail = (email: string) => email.trim().toLowerCase().normalize("NFC");

const view = ({ password_hash: _, ...user }: ConsoleUsersTable): ConsoleUser => user;

export class Users {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  async create(input: { email: string; accountId: string; password: string }): Promise<ConsoleUser> {
    const email = normaliseEmail(input.email);
    if (!emailPattern.test(email) || email.length > 254)
      throw invalidRequest(`${printable(JSON.stringify(input.email))} is not an email`);
    checkPassword(input.password);
    const existing = await this.db.selectFrom("console_users").select("id").where("email", "=", email).execute();
    if (existing.length > 0) throw conflict(`A console user with the email ${email} exists already`);
    const row: ConsoleUsersTable = {
      id: newId("usr", 16),
      account_id: input.accountId,
      email,
      password_hash: await hashPassword(input.password),
      created_at: this.clock.now(),
      last_sign_in_at: null,
    };
    await this.db.insertInto("console_users").values(row).execute();
    return view(row);
  }

  /** The users of one account, or of every account, oldest first. */
  async list(accountId?: string): Promise<ConsoleUser[]> {
    let query = this.db.selectFrom("console_users").selectAll().orderBy("created_at").orderBy("id");
    if (accountId !== undefined) query = query.where("account_id", "=", accountId);
    return (await query.execute()).map(view);
  }

  /** Replaces the user's password and ends every session the user had. */
  async setPassword(email: string, password: string): Promise<ConsoleUser> {
    checkPassword(password);
    const passwordHash = await hashPassword(password);
    return this.db.transaction().execute(async (trx) => {
      const row = await byEmail(trx, email);
      await trx.updateTable("console_users").set({ password_hash: passwordHash }).where("id", "=", row.id).execute();
      await trx.deleteFrom("console_sessions").where("user_id", "=", row.id).execute();
      return view(row);
    });
  }

  /** Deletes the user and ends every session the user had. */
  async remove(email: string): Promise<ConsoleUser> {
    return this.db.transaction().execute(async (trx) => {
      const row = await byEmail(trx, email);
      await trx.deleteFrom("console_sessions").where("user_id", "=", row.id).execute();
      await trx.deleteFrom("console_users").where("id", "=", row.id).execute();
      return view(row);
    });
  }

  async get(id: string): Promise<ConsoleUser | undefined> {
    const row = await this.db.selectFrom("console_users").selectAll().where("id", "=", id).executeTakeFirst();
    return row && view(row);
  }

  /** The user when the password matches; undefined otherwise (unknown email or wrong password alike). */
  async authenticate(email: string, password: string): Promise<ConsoleUser | undefined> {
    const row = await this.db
      .selectFrom("console_users")
      .selectAll()
      .where("email", "=", normaliseEmail(email))
      .executeTakeFirst();
    if (!row) return verifyDecoy(password).then(() => undefined);
    if (!(await verifyPassword(password, row.password_hash))) return undefined;
    const now = this.clock.now();
    await this.db.updateTable("console_users").set({ last_sign_in_at: now }).where("id", "=", row.id).execute();
    return view({ ...row, last_sign_in_at: now });
  }
}

/**
 * The user's row, or 404 naming the email. The email as stored, when a row has it exactly (trimmed, in lower case),
 * else in NFC: a user an earlier version stored decomposed, whose composed form another user held when migration 0011
 * ran, is reached by typing it as stored (and `users list` writes it with escapes, which tell it apart).
 */
async function byEmail(db: Kysely<Database>, email: string): Promise<ConsoleUsersTable> {
  const normalised = normaliseEmail(email);
  const asTyped = email.trim().toLowerCase();
  const rows = await db
    .selectFrom("console_users")
    .selectAll()
    .where("email", "in", [...new Set([asTyped, normalised])])
    .execute();
  const row = rows.find((r) => r.email === asTyped) ?? rows[0];
  if (!row) throw notFound(`No console user with the email ${printable(normalised)}`);
  return row;
}
