// The re-seal of a master-key rotation (`gateway master-key reseal`, docs/configuration.md): every secret the store
// holds sealed by the secret box — webhook signing secrets, provider access and refresh tokens, the PKCE verifiers of
// connect sessions under way — that opens under a previous key only is sealed again under the current key. Rows go a
// batch at a time in id order, each batch's writes in one transaction, the event loop turning between batches. Each row is written by a compare-and-set on
// the sealed values it was read with: a node refreshing a token or rotating a webhook secret meanwhile (or another
// re-seal) wins, and the row is read again; so several re-seals, and serving nodes, may run at once, and a second run
// finds nothing left. Once nothing sealed under a previous key is left, the store records the current key's check
// value and retires the previous keys (core/crypto/master-key-check.ts).
import { setImmediate as nextTurn } from "node:timers/promises";
import type { Kysely } from "kysely";
import type { Database } from "../../store/schema.ts";
import type { Clock } from "../clock.ts";
import { type MasterKeys, recordCurrentKey } from "./master-key-check.ts";
import { SecretBox } from "./secret-box.ts";

/** Rows a batch reads. */
export const resealBatchSize = 500;

/** The tables holding sealed values, each with its columns sealed by the secret box. */
const sealedColumns = {
  webhook_secrets: ["secret_sealed"],
  connections: ["access_token", "refresh_token"],
  connect_sessions: ["code_verifier"],
} as const;

type SealedTable = keyof typeof sealedColumns;

export interface ResealReport {
  /** Values sealed anew under the current key, per table. */
  resealed: Record<SealedTable, number>;
  /** Values that were sealed under the current key already. */
  current: number;
  /** Values that open under none of the keys: neither read nor written (a key missing from the configuration). */
  unopenable: number;
  /** Values still under a previous key: their row kept changing under each compare-and-set (run the re-seal again). */
  remaining: number;
  /** Whether the store now records the current key's check value (it does once nothing is left under a previous one). */
  checkRecorded: boolean;
}

/** How many times a row changed by others is read again before it is left for the next run. */
const attemptsPerRow = 5;

export async function resealSecrets(
  db: Kysely<Database>,
  clock: Clock,
  keys: MasterKeys,
  batchSize = resealBatchSize,
): Promise<ResealReport> {
  const box = new SecretBox(keys.key, keys.previous);
  const report: ResealReport = {
    resealed: { webhook_secrets: 0, connections: 0, connect_sessions: 0 },
    current: 0,
    unopenable: 0,
    remaining: 0,
    checkRecorded: false,
  };
  for (const table of Object.keys(sealedColumns) as SealedTable[]) {
    const columns = sealedColumns[table];
    // The three tables share the shape this needs (a text id, nullable text columns): one loop for all of them.
    const rows = db as unknown as Kysely<Record<string, Record<string, string | null>>>;
    let after = "";
    for (;;) {
      const batch = await rows
        .selectFrom(table)
        .select(["id", ...columns])
        .where("id", ">", after)
        .orderBy("id")
        .limit(batchSize)
        .execute();
      // A batch's writes commit together: a commit a row made most of the re-seal's time on PostgreSQL.
      await rows.transaction().execute(async (store) => {
        for (const row of batch) {
          let read: Record<string, string | null> | undefined = row;
          for (let attempt = 0; read !== undefined; attempt++) {
            const changes = resealedColumns(box, read, columns, report, attempt === 0);
            if (Object.keys(changes).length === 0) break;
            if (attempt === attemptsPerRow) {
              report.remaining++;
              break;
            }
            let update = store
              .updateTable(table)
              .set(changes)
              .where("id", "=", row.id as string);
            for (const column of columns) {
              const value = read[column] ?? null;
              update = value === null ? update.where(column, "is", null) : update.where(column, "=", value);
            }
            if (Number((await update.executeTakeFirst()).numUpdatedRows) === 1) {
              report.resealed[table] += Object.keys(changes).length;
              break;
            }
            // Changed by someone else since it was read (or deleted): read again.
            read = await store
              .selectFrom(table)
              .select(columns)
              .where("id", "=", row.id as string)
              .executeTakeFirst();
          }
        }
      });
      if (batch.length < batchSize) break;
      after = batch[batch.length - 1]?.id as string;
      await nextTurn();
    }
  }
  if (report.remaining === 0 && report.unopenable === 0) report.checkRecorded = await recordCurrentKey(db, clock, keys);
  return report;
}

/** The row's columns that need sealing under the current key, sealed anew; counts the others when `count`. */
function resealedColumns(
  box: SecretBox,
  row: Record<string, string | null>,
  columns: readonly string[],
  report: ResealReport,
  count: boolean,
): Record<string, string> {
  const changes: Record<string, string> = {};
  for (const column of columns) {
    const sealed = row[column];
    if (sealed === null || sealed === undefined) continue;
    let resealed: string | undefined;
    try {
      resealed = box.resealed(sealed);
    } catch {
      if (count) report.unopenable++;
      continue;
    }
    if (resealed === undefined) {
      if (count) report.current++;
    } else changes[column] = resealed;
  }
  return changes;
}
