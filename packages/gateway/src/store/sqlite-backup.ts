// An online copy of the embedded SQLite store, consistent as of one moment, taken beside a gateway that serves it.
// Copying gateway.db with cp is not one: the latest commits are in gateway.db-wal, and a checkpoint writing into the
// file while it is read leaves pages of two moments (under writes, 2 copies in 40 failed quick_check and the others
// lacked up to 77 acknowledged requests). SQLite's backup API reads the pages inside a read transaction instead. It
// copies them all in one step, so in one read transaction: a copy made in several steps starts over whenever another
// process commits between two of them, and under a serving gateway's writes may never end. In WAL mode a reader
// neither waits for the writer nor holds it up; the log only grows while the copy runs, and the next checkpoint
// catches up. The connection is read-only: it takes no lock the gateway uses (serve.lock included) and never
// checkpoints. The copy is written beside the target under another name and renamed into place once SQLite has
// checked it, so that a target that exists is a whole backup. A file that is not a gateway store (an empty gateway.db, or
// a SQLite database no gateway has migrated) is refused: a copy of it would restore as an empty gateway.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import { migrationProvider } from "./migrations/index.ts";

/** The most pages better-sqlite3 copies in one step. */
const everyPage = 0x7fffffff;

export interface SqliteBackup {
  /** The store copied, and the file written. */
  source: string;
  file: string;
  bytes: number;
  /** How long the copy took, its check and its sync included. */
  ms: number;
}

/** Copies `<dataDir>/gateway.db` to `target`; refuses a target that exists unless `overwrite`. */
export async function backupSqliteStore(dataDir: string, target: string, overwrite: boolean): Promise<SqliteBackup> {
  const started = performance.now();
  const source = path.join(dataDir, "gateway.db");
  const file = path.resolve(target);
  if (!fs.existsSync(source)) {
    throw new Error(`There is no gateway store at ${source}: give this command the gateway's GATEWAY_DATA_DIR`);
  }
  refuseStoreFiles(source, file);
  const taken = () => new Error(`${file} exists: name another file, or give --overwrite`);
  if (fs.existsSync(file) && !overwrite) throw taken();
  const db = new SQLite(source, { readonly: true, fileMustExist: true, timeout: 5_000 });
  try {
    await refuseUnmigrated(db, source);
  } catch (error) {
    db.close();
    throw error;
  }
  const partial = `${file}.${randomBytes(6).toString("hex")}.partial`;
  try {
    // Readable by its owner only, as the store is: it holds sealed secrets and end users' names and addresses.
    fs.closeSync(fs.openSync(partial, "wx", 0o600));
  } catch (error) {
    db.close();
    throw new Error(`Cannot write the backup beside ${file}: ${(error as Error).message}`);
  }
  try {
    try {
      // better-sqlite3's first step copies no page; the second, as many as it is told: all of them, however many.
      await db.backup(partial, { progress: () => everyPage });
    } finally {
      db.close();
    }
    checkCopy(partial);
    // A link fails on a name taken meanwhile, where a rename would replace it.
    if (overwrite) fs.renameSync(partial, file);
    else {
      try {
        fs.linkSync(partial, file);
      } catch (error) {
        throw (error as NodeJS.ErrnoException).code === "EEXIST" ? taken() : error;
      }
      fs.rmSync(partial);
    }
    syncDirectory(path.dirname(file));
    return { source, file, bytes: fs.statSync(file).size, ms: Math.round(performance.now() - started) };
  } catch (error) {
    fs.rmSync(partial, { force: true });
    throw error;
  }
}

/**
 * Refuses a file that is not a gateway store. The gateway records each migration it applies as a row of
 * `kysely_migration`, and applies the first one before anything else (on SQLite every pending migration in one
 * transaction), never removing it: a store is a gateway's once that row is there, whether an older or a newer version
 * migrated it. An empty file has no such table, nor has another database; a first migration that failed leaves the
 * table without its row.
 */
async function refuseUnmigrated(db: SQLite.Database, source: string): Promise<void> {
  const [first] = Object.keys(await migrationProvider.getMigrations()).sort();
  let what = `no gateway migration (${first}) is recorded in it`;
  try {
    const table = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'").get();
    if (table && db.prepare("select 1 from kysely_migration where name = ?").get(first)) return;
    if (fs.statSync(source).size === 0) what = "an empty file";
  } catch (error) {
    if ((error as { code?: unknown }).code !== "SQLITE_NOTADB") throw error;
    what = "not a SQLite database";
  }
  throw new Error(`${source} is not a gateway store (${what}): nothing was written`);
}

/**
 * Refuses a target that names the store, or its log beside it, under any name: the copy is renamed into the target's
 * place, which would put it in the serving store's (the data directory given through a symlink and the target by its
 * real path, say, or the other way round). Directories are compared by their real paths, the names as given: a target
 * that is a symlink to the store is replaced itself, not the store.
 */
function refuseStoreFiles(source: string, file: string): void {
  const real = (name: string) => {
    try {
      return path.join(fs.realpathSync(path.dirname(name)), path.basename(name));
    } catch {
      return name; // a directory that does not exist holds no store
    }
  };
  const target = real(file);
  const store = real(source);
  if (target === store) throw new Error(`${file} is the store itself: name another file`);
  if (["-wal", "-shm", "-journal"].some((suffix) => target === `${store}${suffix}`)) {
    throw new Error(`${file} is one of the store's own files: name another file`);
  }
}

/**
 * The copy as one file that any SQLite opens alone (rollback journal: no -wal or -shm to keep beside it; the gateway
 * puts it back in WAL mode when it opens it), checked page by page, and on disk before it takes the target's name.
 */
function checkCopy(file: string): void {
  const copy = new SQLite(file, { fileMustExist: true });
  try {
    copy.pragma("journal_mode = DELETE");
    const check = copy.pragma("quick_check", { simple: true });
    if (check !== "ok") throw new Error(`The copy failed SQLite's check (${String(check)}): nothing was written`);
  } finally {
    copy.close();
  }
  const fd = fs.openSync(file, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function syncDirectory(directory: string): void {
  const fd = fs.openSync(directory, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
