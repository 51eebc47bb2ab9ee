// Background checkpoints of the SQLite store (checkpointer.ts), on a real database file: the worker copies the log
// into the database while the serving connection only keeps a distant backstop; a worker that stops hands
// checkpoints back to the serving connection until a new worker starts; closing leaves the data in the database file
// and no log behind.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type Kysely, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import type { CheckpointResult } from "./checkpointer.ts";
import { openStore, type Store } from "./database.ts";

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close().catch(() => {});
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

interface Listeners {
  onError?(error: Error, restartInMs: number): void;
  onCheckpoint?(result: CheckpointResult): void;
}

function open(dataDir: string, options: Listeners, restartDelayMs = 60_000) {
  const store = openStore({
    dataDir,
    backgroundCheckpoints: {
      intervalMs: 10,
      restartDelayMs,
      onError: options.onError ?? (() => {}),
      onCheckpoint: options.onCheckpoint,
    },
  });
  stores.push(store);
  return store;
}

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "checkpointer-"));
  dirs.push(dir);
  return dir;
}

const pragma = async (db: Kysely<unknown>, name: string) =>
  Object.values((await sql.raw(`pragma ${name}`).execute(db)).rows[0] as object)[0];

/** Writes `count` transactions of one ~3 KB row each: a page or more of log per commit. */
async function write(db: Kysely<unknown>, count: number): Promise<void> {
  await sql`create table if not exists filler (n integer, data blob)`.execute(db);
  for (let n = 0; n < count; n++) {
    await sql`insert into filler values (${n}, randomblob(3000))`.execute(db);
  }
}

const until = async (condition: () => boolean, what: string) => {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

describe("background checkpoints", () => {
  it("copy the log into the database on the worker; the serving connection keeps only a backstop", async () => {
    const results: CheckpointResult[] = [];
    const store = open(tempDir(), { onCheckpoint: (r) => results.push(r) });
    const db = store.db as unknown as Kysely<unknown>;
    expect(await pragma(db, "wal_autocheckpoint")).toBe(16_384);
    expect(await pragma(db, "journal_size_limit")).toBe(16_384 * 4096);

    // More than SQLite's own threshold (1,000 pages) of log: the frames reach the database through the worker.
    await write(db, 1_500);
    await until(() => results.some((r) => r.checkpointedFrames === r.logFrames), "a complete checkpoint");
    expect(results.every((r) => r.checkpointedFrames > 0 && r.checkpointedFrames <= r.logFrames)).toBe(true);
  });

  it("hand checkpoints back to the serving connection when the worker stops, then start a new worker", async () => {
    const errors: { error: Error; restartInMs: number }[] = [];
    const results: CheckpointResult[] = [];
    const store = open(
      tempDir(),
      { onError: (error, restartInMs) => errors.push({ error, restartInMs }), onCheckpoint: (r) => results.push(r) },
      300,
    );
    const db = store.db as unknown as Kysely<unknown>;
    const first = store.checkpointer?.worker;
    await first?.terminate();
    await until(() => errors.length > 0, "the error report");
    expect(errors).toHaveLength(1);
    expect(errors[0]?.error.message).toMatch(/^The checkpoint worker stopped \(exit code \d+\)$/);
    expect(errors[0]?.restartInMs).toBe(300);
    expect(await pragma(db, "wal_autocheckpoint")).toBe(1_000);
    await write(db, 10);

    // After the delay a new worker runs, the backstop is distant again, and the new worker's checkpoints copy the log.
    await until(() => store.checkpointer?.worker !== first, "a new worker");
    expect(await pragma(db, "wal_autocheckpoint")).toBe(16_384);
    results.length = 0;
    await write(db, 1_200);
    await until(() => results.some((r) => r.checkpointedFrames === r.logFrames), "a complete checkpoint");

    // A second failure waits twice as long.
    await store.checkpointer?.worker.terminate();
    await until(() => errors.length > 1, "the second error report");
    expect(errors[1]?.restartInMs).toBe(600);
    await store.close();
  });

  it("leave every row in the database file and no log behind once closed", async () => {
    const dir = tempDir();
    const store = open(dir, {});
    await write(store.db as unknown as Kysely<unknown>, 200);
    await store.close();
    expect(fs.existsSync(path.join(dir, "gateway.db-wal"))).toBe(false);

    const reopened = openStore({ dataDir: dir });
    stores.push(reopened);
    const count = await sql<{ n: number }>`select count(*) as n from filler`.execute(reopened.db);
    expect(count.rows[0]?.n).toBe(200);
  });
});
