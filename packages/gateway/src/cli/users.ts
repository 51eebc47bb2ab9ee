// gateway users create: a console user of an account, straight in the store. The password comes from standard input
// (--password-stdin) or is generated and shown once.
import { randomBytes } from "node:crypto";
import { Command } from "commander";
import { Accounts } from "../core/accounts.ts";
import { Users } from "../core/users/users.ts";
import { clock, print, withStore } from "./shared.ts";

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString("utf8")
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
        await new Accounts(store.db, clock).ensure(options.account);
        const user = await new Users(store.db, clock).create({
          email: options.email,
          accountId: options.account,
          password,
        });
        print(
          options.json === true,
          { id: user.id, email: user.email, account_id: user.account_id, ...(generated && { password }) },
          `Created console user ${user.email} (${user.id}) for account ${user.account_id}.` +
            (generated ? `\nPassword (shown once, store it now): ${password}` : ""),
        );
      });
    });
  return users;
}
