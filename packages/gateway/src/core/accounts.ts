// Accounts (tenants). The first start of an empty store creates the account "default".
import type { Kysely } from "kysely";
import type { Database } from "../store/schema.ts";
import type { Clock } from "./clock.ts";
import { invalidRequest } from "./errors.ts";

export interface Account {
  id: string;
  name: string;
  created_at: number;
}

const accountIdPattern = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/**
 * The account the public demo runs as (/demo): the gateway's own principal, which no tenant may be. A tenant of that id
 * would share it: its list cursors would open for the demo's visitors and theirs for it.
 */
export const demoAccountId = "demo";

export const demoAccountRefused = () =>
  invalidRequest(
    `"${demoAccountId}" is the account the public demo runs as, which no tenant may have: choose another id`,
  );

export class Accounts {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  async get(id: string): Promise<Account | undefined> {
    return this.db.selectFrom("accounts").selectAll().where("id", "=", id).executeTakeFirst();
  }

  /**
   * Creates the account unless it exists; answers whether it was created. The demo's account is refused unless
   * `forDemo` (the demo's own routes): a tenant's keys, users or connections never go in it.
   */
  async ensure(
    id: string,
    name = id,
    options: { forDemo?: boolean } = {},
  ): Promise<{ account: Account; created: boolean }> {
    if (!accountIdPattern.test(id)) {
      throw invalidRequest(`"${id}" is not a valid account id: lowercase letters, digits, "_" and "-", up to 63`);
    }
    if (id === demoAccountId && options.forDemo !== true) throw demoAccountRefused();
    const row = { id, name, created_at: this.clock.now() };
    const inserted = await this.db
      .insertInto("accounts")
      .values(row)
      .onConflict((oc) => oc.column("id").doNothing())
      .executeTakeFirst();
    const created = Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
    return { account: created ? row : ((await this.get(id)) as Account), created };
  }

  /**
   * Whether this start is the store's first, the one that creates the first API key: no key was ever created in the
   * store, and no other node has claimed the first start (a row inserted once). An account that a failed command left
   * behind does not make a store used.
   */
  async claimFirstStart(): Promise<boolean> {
    const keys = await this.db
      .selectFrom("api_keys")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    if (Number(keys.n) > 0) return false;
    const claimed = await this.db
      .insertInto("store_settings")
      .values({ name: "first_start", value: "default", created_at: this.clock.now() })
      .onConflict((oc) => oc.column("name").doNothing())
      .executeTakeFirst();
    return Number(claimed.numInsertedOrUpdatedRows ?? 0) > 0;
  }
}
