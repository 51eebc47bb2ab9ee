// Which stores a benchmark measures: both by default, one with BENCH_STORES=sqlite (or postgres); and where a
// benchmark's fresh store lives.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { randomBase62 } from "../../packages/gateway/src/core/ids.ts";

export type BenchStore = "sqlite" | "postgres";

export const benchStores = (): BenchStore[] =>
  (process.env.BENCH_STORES ?? "sqlite,postgres")
    .split(",")
    .filter((name): name is BenchStore => name === "sqlite" || name === "postgres");

export const benchPostgresUrl = process.env.GATEWAY_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/**
 * A place for a fresh store of `kind`: a temporary data directory and, on PostgreSQL, a schema of its own in
 * benchPostgresUrl's database (`postgres`, to spread into openStore's options). `remove` drops both.
 */
export async function benchStorePlace(kind: BenchStore, name: string) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-${name}-`));
  const schema = `bench_${randomBase62(10).toLowerCase()}`;
  const admin = kind === "postgres" ? new pg.Client({ connectionString: benchPostgresUrl }) : undefined;
  if (admin) {
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
  }
  return {
    dataDir,
    postgres: admin && { databaseUrl: benchPostgresUrl, schema },
    async remove() {
      if (admin) {
        await admin.query(`DROP SCHEMA ${schema} CASCADE`);
        await admin.end();
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
