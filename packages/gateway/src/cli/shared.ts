// Helpers shared by CLI commands: opening the configured store, printing for people or as JSON.
import { loadConfig } from "../config.ts";
import { Accounts, demoAccountId, demoAccountRefused } from "../core/accounts.ts";
import { systemClock } from "../core/clock.ts";
import { openStore, type Store } from "../store/database.ts";

/**
 * Opens the configured store, migrated, for `work`. When the store was empty (no gateway ever used it), says so on
 * standard error unless `expectNew`: a command run with another GATEWAY_DATA_DIR (or from another directory) than the
 * gateway's would otherwise write to a store of its own, and the user would find nothing of it in the gateway.
 */
export async function withStore<T>(work: (store: Store) => Promise<T>, expectNew = false): Promise<T> {
  const config = loadConfig();
  const store = openStore({
    databaseUrl: config.databaseUrl,
    preparedStatements: config.preparedStatements,
    timeoutMs: config.databaseTimeoutMs,
    dataDir: config.dataDir,
  });
  try {
    const { created } = await store.migrate();
    if (created && !expectNew) {
      const variable = store.kind === "sqlite" ? "GATEWAY_DATA_DIR" : "GATEWAY_DATABASE_URL";
      process.stderr.write(
        `Note: there was no gateway store at ${store.location}, so this command created an empty one. A gateway ` +
          `serving another store will not see what it writes: give this command the gateway's ${variable}.\n`,
      );
    }
    return await work(store);
  } finally {
    await store.close();
  }
}

export const clock = systemClock;

/** An account named on the command line that the store does not have: a mistyped name, said as such. */
export async function requireAccount(store: Store, accountId: string): Promise<void> {
  // The demo's account exists once /demo was used, but is no tenant's: nothing of a tenant's is made or listed in it.
  if (accountId === demoAccountId) throw demoAccountRefused();
  if (await new Accounts(store.db, clock).get(accountId)) return;
  throw new Error(
    `There is no account ${accountId}: create it with a key first (gateway keys create --account ${accountId})`,
  );
}

/** A value that a key's holder chose (a key's name, an external_ref), for a line printed to people. */
export { printable } from "../core/printable.ts";

export function print(json: boolean, value: unknown, human: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human}\n`);
}

/**
 * fetch, with a failure to connect said in words: which origin could not be reached and why (only the origin: a
 * connect URL's query holds a session token).
 */
export async function fetchOrSay(url: string, init: RequestInit, hint = ""): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new Error(`Could not reach ${new URL(url).origin} (${why})${hint}`);
  }
}
