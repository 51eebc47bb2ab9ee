// One serving gateway per SQLite store. SQLite is for one node: its webhook worker takes the leases it finds at start
// for a killed process's, and voids them. A second `gateway serve` on the same data directory would void the leases
// of a live one and send its deliveries again, so a gateway that runs the worker on SQLite takes this lock at start,
// and is refused when another holds it. The lock is SQLite's own, an exclusive lock on `serve.lock` in the data
// directory held for the life of the process: the operating system drops it when the process ends, however it ends,
// so a crash leaves nothing to clean up. The CLI's store commands (`keys create`, `migrate`) and a gateway started
// with GATEWAY_NO_WEBHOOK_WORKER=1 do not take it.
import path from "node:path";
import SQLite from "better-sqlite3";
import { dataDirError, makeDataDir } from "./data-dir.ts";

export interface ServingLock {
  release(): void;
}

export function lockServing(dataDir: string): ServingLock {
  makeDataDir(dataDir);
  // No busy timeout: a lock held by another process is an answer, not something to wait for.
  let db: SQLite.Database;
  try {
    db = new SQLite(path.join(dataDir, "serve.lock"), { timeout: 0 });
  } catch (error) {
    throw dataDirError(dataDir, `${(error as Error).message} (${path.join(dataDir, "serve.lock")})`);
  }
  try {
    // Nothing is ever written: no journal file beside it either.
    db.pragma("journal_mode = MEMORY");
    db.pragma("locking_mode = EXCLUSIVE");
    db.exec("BEGIN EXCLUSIVE");
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code !== "SQLITE_BUSY") throw error;
    throw new Error(
      `Another gateway is serving the SQLite store in ${dataDir}: stop it first. SQLite serves one node; run several ` +
        "nodes on PostgreSQL (GATEWAY_DATABASE_URL).",
    );
  }
  return {
    release() {
      if (!db.open) return;
      // Rolled back, not committed: a commit would write the database header into the empty file.
      db.exec("ROLLBACK");
      db.close();
    },
  };
}
