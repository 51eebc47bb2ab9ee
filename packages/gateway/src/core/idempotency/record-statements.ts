// The statements on an Idempotency-Key's path, each grouped across concurrent requests (store/group-commit.ts): one
// statement per turn of the event loop, compiled once per batch size. A fresh key makes two writes, its claim and its
// completion; a repeat's claim is refused, and the record in its way is read. All three are plain SQL that SQLite and
// PostgreSQL share (ON CONFLICT … RETURNING, row values).
import type { Compilable, Kysely } from "kysely";
import { groupCommit } from "../../store/group-commit.ts";
import { type Placeholder, precompile, precompilePerCount } from "../../store/precompiled.ts";
import type { Database, IdempotencyKeysTable } from "../../store/schema.ts";

/** A row as a claim inserts it, or as a completion leaves it. */
export type RecordRow = IdempotencyKeysTable;

const columns = [
  "account_id",
  "key_hash",
  "fingerprint",
  "state",
  "claim_token",
  "lease_until",
  "status",
  "content_type",
  "body",
  "created_at",
  "expires_at",
] as const satisfies readonly (keyof RecordRow)[];

type Statement = (values: Record<string, unknown>) => Promise<{ rows: unknown[] }>;

export class RecordStatements {
  /** Inserts a running claim unless the key has a record; answers whether this claim is the one stored. */
  readonly insertClaim: (row: RecordRow) => Promise<boolean>;
  /** Stores a completed record over the running claim it belongs to; false when that claim is no longer there. */
  readonly storeCompleted: (row: RecordRow) => Promise<boolean>;
  /** The record of a key, if any: what stands in the way of a refused claim. */
  readonly readRecord: (ref: { accountId: string; keyHash: string }) => Promise<RecordRow | undefined>;
  private readonly claimStatements = new Map<number, Statement>();
  private readonly completeStatements = new Map<number, Statement>();

  constructor(private readonly db: Kysely<Database>) {
    this.insertClaim = groupCommit((rows) => this.run(rows, this.claimStatements, (p, n) => this.claimSql(p, n)));
    this.storeCompleted = groupCommit(async (rows) => {
      // Two completions for one key cannot share a statement (an upsert may touch a row once): rare, so in turn.
      const results = new Map<RecordRow, boolean>();
      let left = rows;
      while (left.length > 0) {
        const seen = new Set<string>();
        const batch = left.filter((row) => !seen.has(rowKey(row)) && seen.add(rowKey(row)));
        const stored = await this.run(batch, this.completeStatements, (p, n) => this.completeSql(p, n));
        for (const [i, row] of batch.entries()) results.set(row, stored[i] ?? false);
        left = left.filter((row) => !results.has(row));
      }
      return rows.map((row) => results.get(row) ?? false);
    });
    // Placeholders in pairs, account and key hash: `(account_id, key_hash) IN ((?, ?), …)`.
    const recordsOf = precompilePerCount(db, (placeholders) =>
      db
        .selectFrom("idempotency_keys")
        .selectAll()
        .where((eb) =>
          eb(
            eb.refTuple("account_id", "key_hash"),
            "in",
            pairsOf(placeholders).map(([accountId, keyHash]) => eb.tuple(accountId, keyHash)),
          ),
        ),
    );
    this.readRecord = groupCommit(async (refs) => {
      const { rows } = await recordsOf(refs.flatMap((ref) => [ref.accountId, ref.keyHash]));
      const byKey = new Map((rows as RecordRow[]).map((row) => [rowKey(row), row]));
      return refs.map((ref) => byKey.get(keyOf(ref.accountId, ref.keyHash)));
    });
  }

  /** Runs the statement for `rows.length` rows; a row "won" when its claim token comes back from RETURNING. */
  private async run(
    rows: RecordRow[],
    cache: Map<number, Statement>,
    build: (p: Placeholder<string>, count: number) => Compilable,
  ): Promise<boolean[]> {
    let statement = cache.get(rows.length);
    if (!statement) {
      statement = precompile<string, Database>(this.db, (p) => build(p, rows.length)) as Statement;
      cache.set(rows.length, statement);
    }
    // Placeholders are numbered row by row, column by column: the values are one flat array in that order.
    const values: unknown[] = [];
    for (const row of rows) for (const column of columns) values.push(row[column]);
    const { rows: returned } = await statement(values as unknown as Record<string, unknown>);
    const won = new Set((returned as { claim_token: string }[]).map((r) => r.claim_token));
    return rows.map((row) => won.has(row.claim_token));
  }

  private placeholders(p: Placeholder<string>, count: number) {
    return Array.from({ length: count }, (_, i) =>
      Object.fromEntries(columns.map((column, c) => [column, p(String(i * columns.length + c))])),
    ) as unknown as RecordRow[];
  }

  private claimSql(p: Placeholder<string>, count: number) {
    return this.db
      .insertInto("idempotency_keys")
      .values(this.placeholders(p, count))
      .onConflict((oc) => oc.columns(["account_id", "key_hash"]).doNothing())
      .returning("claim_token");
  }

  private completeSql(p: Placeholder<string>, count: number) {
    return this.db
      .insertInto("idempotency_keys")
      .values(this.placeholders(p, count))
      .onConflict((oc) =>
        oc
          .columns(["account_id", "key_hash"])
          .doUpdateSet((eb) => ({
            state: eb.ref("excluded.state"),
            status: eb.ref("excluded.status"),
            content_type: eb.ref("excluded.content_type"),
            body: eb.ref("excluded.body"),
          }))
          .whereRef("idempotency_keys.claim_token", "=", "excluded.claim_token")
          .where("idempotency_keys.state", "=", "running"),
      )
      .returning("claim_token");
  }
}

/** A record's identity as one string: the account and the key's hash. */
const keyOf = (accountId: string, keyHash: string) => `${accountId}\u0000${keyHash}`;
const rowKey = (row: RecordRow) => keyOf(row.account_id, row.key_hash);

/** [a, b, c, d] → [[a, b], [c, d]]. */
function pairsOf<T>(items: readonly T[]): [T, T][] {
  const pairs: [T, T][] = [];
  for (let i = 0; i + 1 < items.length; i += 2) pairs.push([items[i] as T, items[i + 1] as T]);
  return pairs;
}
