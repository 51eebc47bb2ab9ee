// gateway keys create|list|revoke: API keys managed straight in the store.
import { Command } from "commander";
import { Accounts } from "../core/accounts.ts";
import { ApiKeys, type ApiKeyView, apiKeyBounds } from "../core/api-keys.ts";
import { providers } from "../providers/registry.ts";
import { clock, print, printable, requireAccount, withStore } from "./shared.ts";

const { nameMaxLength, scopesMaxItems, rateLimitMax } = apiKeyBounds;

function parseRateLimit(value: string): { perMinute: number; burst: number } {
  const match = /^(\d+)(?::(\d+))?$/.exec(value);
  const perMinute = Number(match?.[1]);
  const burst = Number(match?.[2] ?? Math.max(1, Math.ceil(perMinute / 10)));
  const within = (n: number) => n >= 1 && n <= rateLimitMax;
  if (!match || !within(perMinute) || !within(burst)) {
    throw new Error(`--rate-limit takes PER_MINUTE[:BURST], each from 1 to ${rateLimitMax}, got "${value}"`);
  }
  return { perMinute, burst };
}

/** The bounds create_api_key's schema puts on the same fields (a name's length in characters, as the API counts). */
function checkBounds(name: string, scopes: string): void {
  const length = [...name].length;
  if (length > nameMaxLength) throw new Error(`--name takes at most ${nameMaxLength} characters, got ${length}`);
  const count = scopes.split(/[\s,]+/).filter(Boolean).length;
  if (count > scopesMaxItems) throw new Error(`--scopes takes at most ${scopesMaxItems} scopes, got ${count}`);
}

export function keysCommand(): Command {
  const keys = new Command("keys").description("Create, list and revoke API keys");

  keys
    .command("create")
    .description("Create an API key (shown once)")
    .option("--account <id>", "account the key belongs to (created if missing)", "default")
    .option("--scopes <scopes>", 'comma-separated scopes: "*", "<provider>" or "<provider>:<operation>"', "*")
    .option("--name <name>", "a name to recognise the key by", "")
    .option(
      "--rate-limit <per_minute[:burst]>",
      "the key's own rate limit instead of the gateway's default (GATEWAY_RATE_LIMIT_PER_MINUTE and _BURST: 600/min, burst 60 unless set)",
    )
    .option("--json", "print JSON")
    .action(async (options: { account: string; scopes: string; name: string; rateLimit?: string; json?: boolean }) => {
      checkBounds(options.name, options.scopes);
      const rateLimit = options.rateLimit === undefined ? null : parseRateLimit(options.rateLimit);
      await withStore(async (store) => {
        // One transaction: a key refused (a misspelt scope) leaves no account behind either.
        const { key, view } = await store.db.transaction().execute(async (trx) => {
          await new Accounts(trx, clock).ensure(options.account);
          return new ApiKeys(trx, clock, 0, providers).create({
            accountId: options.account,
            name: options.name,
            scopes: options.scopes,
            rateLimit,
          });
        });
        print(
          options.json === true,
          { id: view.id, key, account_id: view.account_id, scopes: view.scopes },
          `Created ${view.id} for account ${view.account_id} with scopes ${view.scopes.join(",")}.\n` +
            `Key (shown once, store it now): ${key}`,
        );
      });
    });

  keys
    .command("list")
    .description("List an account's keys (never the keys themselves)")
    .option("--account <id>", "account (default: default)")
    .option("--json", "print JSON")
    .action(async (options: { account?: string; json?: boolean }) => {
      await withStore(async (store) => {
        // A named account that does not exist is a typo, not an account without keys.
        if (options.account !== undefined) await requireAccount(store, options.account);
        const accountId = options.account ?? "default";
        const apiKeys = new ApiKeys(store.db, clock, 0, providers);
        const list: ApiKeyView[] = [];
        for (let cursor: string | undefined, more = true; more; ) {
          const page = await apiKeys.list(accountId, { cursor, limit: 100 });
          list.push(...page.apiKeys);
          cursor = page.pagination.next_cursor ?? undefined;
          more = cursor !== undefined;
        }
        const now = clock.now();
        // A key past its expiry is refused as surely as a revoked one: it is not shown as active.
        const state = (k: ApiKeyView) =>
          k.revoked_at ? "revoked" : k.expires_at && Date.parse(k.expires_at) <= now ? "expired" : "active";
        const lines = list.map(
          (k) => `${k.id}  ${k.key_prefix}…  ${k.scopes.join(",")}  ${state(k)}  ${printable(k.name)}`,
        );
        print(options.json === true, list, lines.join("\n") || "No keys.");
      });
    });

  keys
    .command("revoke")
    .description("Revoke a key; every node refuses it within GATEWAY_KEY_CACHE_TTL_MS (2 s by default)")
    .argument("<key_id>", "the key's id (key_…)")
    .option("--account <id>", "account", "default")
    .option("--json", "print JSON")
    .action(async (keyId: string, options: { account: string; json?: boolean }) => {
      await withStore(async (store) => {
        const view = await new ApiKeys(store.db, clock, 0, providers).revoke(options.account, keyId);
        print(options.json === true, view, `Revoked ${view.id}.`);
      });
    });
  return keys;
}
