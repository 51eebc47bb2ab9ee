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

export class Accounts {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  async get(id: string): Promise<Account | undefined> {
    return this.db.selectFrom("accounts").selectAll().where("id", "=", id).executeTakeFirst();
  }

  /** Creates the account unless it exists; answers whether it was created. */
  async ensure(id: string, name = id): Promise<{ account: Account; created: boolean }> {
    if (!accountIdPattern.test(id)) {
      throw invalidRequest(`"${id}" is not a valid account id: lowercase letters, digits, "_" and "-", up to 63`);
    }
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
