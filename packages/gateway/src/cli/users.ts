// gateway users create|list|set-password|delete: console users of an account, straight in the store. A password
// comes from standard input (--password-stdin) or is generated and shown once; changing a password or deleting a
// user ends that user's sessions.
import { isUtf8 } from "node:buffer";
import { randomBytes } from "node:crypto";
import { Command } from "commander";
import { Accounts } from "../core/accounts.ts";
import { invalidRequest } from "../core/errors.ts";
import { printable, unicodeEscape } from "../core/printable.ts";
import { Users } from "../core/users/users.ts";
import { clock, print, requireAccount, withStore } from "./shared.ts";

/**
 * An email as `users list` prints it: one an earlier version stored decomposed (not NFC, which migration 0011 left for
 * its composed form was taken) has its combining marks as \u escapes, so that it looks unlike the composed one and can
 * be typed as stored (bash: $'\u30ab\u3099@example.jp') to reach it.
 */
function shownEmail(email: string): string {
  return printable(email === email.normalize("NFC") ? email : email.replace(/\p{M}/gu, unicodeEscape));
}

/**
 * The password on standard input, without its last line break. Bytes that are not UTF-8 are refused rather than
 * decoded to U+FFFD (a password nobody could type at sign-in), and a leading byte order mark, which Windows tools
 * write, is no part of it.
 */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  if (!isUtf8(bytes))
    throw invalidRequest("The password on standard input is not valid UTF-8; send it encoded as UTF-8");
  return bytes
    .toString("utf8")
    .replace(/^\uFEFF/, "")
    .replace(/\r?\n$/, "");
}

export function usersCommand(): Command {
  const users = new Command("users").description("Manage console users");

  users
    .command("create")
    .description("Create a console user who signs in at /console")
    .requiredOption("--email <email>", "the user's email (unique across accounts)")
    .option("--account <id>", "account the user belongs to (created if missing)", "default")
    .option("--password-stdin", "read the password from standard input instead of generating one")
    .option("--json", "print JSON")
    .action(async (options: { email: string; account: string; passwordStdin?: boolean; json?: boolean }) => {
      const generated = options.passwordStdin !== true;
      const password = generated ? randomBytes(15).toString("base64url") : await readStdin();
      await withStore(async (store) => {
        // One transaction: a user refused (a malformed email, one taken) leaves no account behind either.
        const user = await store.db.transaction().execute(async (trx) => {
          await new Accounts(trx, clock).ensure(options.account);
          return new Users(trx, clock).create({ email: options.email, accountId: options.account, password });
        });
        print(
          options.json === true,
          { id: user.id, email: user.email, account_id: user.account_id, ...(generated && { password }) },
          `Created console user ${user.email} (${user.id}) for account ${user.account_id}.` +
            (generated ? `\nPassword (shown once, store it now): ${password}` : ""),
        );
      });
    });
  users
    .command("list")
    .description("List console users (of one account with --account)")
    .option("--account <id>", "only this account's users")
    .option("--json", "print JSON")
    .action(async (options: { account?: string; json?: boolean }) => {
      await withStore(async (store) => {
        if (options.account !== undefined) await requireAccount(store, options.account);
        const listed = await new Users(store.db, clock).list(options.account);
        const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
        print(
          options.json === true,
          // Times in ISO 8601 (UTC), as everywhere else the gateway prints or answers them.
          listed.map((u) => ({ ...u, created_at: iso(u.created_at), last_sign_in_at: iso(u.last_sign_in_at) })),
          listed.length === 0
            ? "No console users."
            : listed
                .map((u) => {
                  const lastSignIn = iso(u.last_sign_in_at) ?? "never";
                  return `${u.id}  ${shownEmail(u.email)}  account ${u.account_id}  last sign-in ${lastSignIn}`;
                })
                .join("\n"),
        );
      });
    });

  users
    .command("set-password")
    .description("Give a console user a new password; the user's sessions end")
    .requiredOption("--email <email>", "the user's email")
    .option("--password-stdin", "read the password from standard input instead of generating one")
    .option("--json", "print JSON")
    .action(async (options: { email: string; passwordStdin?: boolean; json?: boolean }) => {
      const generated = options.passwordStdin !== true;
      const password = generated ? randomBytes(15).toString("base64url") : await readStdin();
      await withStore(async (store) => {
        const user = await new Users(store.db, clock).setPassword(options.email, password);
        print(
          options.json === true,
          { id: user.id, email: user.email, account_id: user.account_id, ...(generated && { password }) },
          `Changed the password of ${user.email}; its sessions have ended.` +
            (generated ? `\nPassword (shown once, store it now): ${password}` : ""),
        );
      });
    });

  users
    .command("delete")
    .description("Delete a console user; the user's sessions end")
    .requiredOption("--email <email>", "the user's email")
    .option("--json", "print JSON")
    .action(async (options: { email: string; json?: boolean }) => {
      await withStore(async (store) => {
        const user = await new Users(store.db, clock).remove(options.email);
        print(
          options.json === true,
          { id: user.id, email: user.email, account_id: user.account_id, deleted: true },
          `Deleted console user ${user.email} (${user.id}).`,
        );
      });
    });
  return users;
}
