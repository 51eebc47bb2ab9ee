// The SQLite backup under another connection's writes without pause, as a serving gateway makes them: the copy is the
// store of one moment (two values always written together are equal in it) and passes SQLite's check. A file that is
// not a gateway store is refused, and nothing is written.
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import SQLite from "better-sqlite3";
import { afterAll, expect, it } from "vitest";
import { backupSqliteStore } from "./sqlite-backup.ts";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sqlite-backup-"));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** What makes a SQLite file a gateway store: the first migration recorded, as the gateway's migrator records it. */
const firstMigration =
  "create table kysely_migration (name varchar(255) not null primary key, timestamp varchar(255) not null);" +
  "insert into kysely_migration values ('0001_accounts_and_keys', '2026-01-01T00:00:00.000Z')";

// Commits one transaction after another until told to stop; says when the first has committed.
const writerSource = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: 5000 });
const write = db.transaction((n) => {
  db.prepare("update pair set a = ?").run(n);
  db.prepare("update pair set b = ?").run(n);
});
let stop = false;
parentPort.on("message", () => { stop = true; });
let n = 0;
const loop = () => {
  const until = Date.now() + 20;
  while (Date.now() < until) write(++n);
  if (!loop.told) parentPort.postMessage("writing");
  loop.told = true;
  if (stop) { db.close(); parentPort.postMessage(n); parentPort.close(); return; }
  setImmediate(loop);
};
loop();
`;

it("copies a 20 MB store while another connection commits without pause, as of one commit", async () => {
  const file = path.join(dataDir, "gateway.db");
  const db = new SQLite(file);
  db.pragma("journal_mode = WAL");
  db.exec(firstMigration);
  db.exec("create table filler (id integer primary key, data blob); create table pair (a integer, b integer)");
  db.exec("insert into pair values (0, 0)");
  const fill = db.prepare("insert into filler (data) values (randomblob(1000))");
  db.transaction(() => {
    for (let i = 0; i < 20_000; i++) fill.run();
  })();
  db.close();

  const writer = new Worker(writerSource, {
    eval: true,
    workerData: { driver: createRequire(import.meta.url).resolve("better-sqlite3"), file },
  });
  const commits = new Promise<number>((resolve) =>
    writer.on("message", (message) => typeof message === "number" && resolve(message)),
  );
  await new Promise((resolve) => writer.once("message", resolve));
  const target = path.join(dataDir, "copy.db");
  let backup: Awaited<ReturnType<typeof backupSqliteStore>>;
  try {
    backup = await backupSqliteStore(dataDir, target, false);
  } finally {
    writer.postMessage("stop");
  }
  const committed = await commits;

  expect(backup.bytes).toBeGreaterThan(20_000_000);
  const copy = new SQLite(target, { readonly: true });
  try {
    expect(copy.pragma("quick_check", { simple: true })).toBe("ok");
    const pair = copy.prepare("select a, b from pair").get() as { a: number; b: number };
    expect(pair.a).toBe(pair.b);
    expect(pair.a).toBeGreaterThan(0);
    expect(pair.a).toBeLessThan(committed);
  } finally {
    copy.close();
  }
}, 60_000);

it("refuses to write over the store or its log, however the data directory or the target is named", async () => {
  const real = path.join(dataDir, "named");
  fs.mkdirSync(real);
  const store = path.join(real, "gateway.db");
  const db = new SQLite(store);
  db.pragma("journal_mode = WAL");
  db.exec("create table t (x); insert into t values (1)");
  const linked = path.join(dataDir, "named-link");
  fs.symlinkSync(real, linked);
  const inode = fs.statSync(store).ino;
  try {
    // The data directory given through a symlink and the target by its real path, and the other way round: with
    // --overwrite the rename would have put the copy in the serving store's place.
    await expect(backupSqliteStore(linked, store, true)).rejects.toThrow(
      `${store} is the store itself: name another file`,
    );
    const viaLink = path.join(linked, "gateway.db");
    await expect(backupSqliteStore(real, viaLink, true)).rejects.toThrow(
      `${viaLink} is the store itself: name another file`,
    );
    for (const suffix of ["-wal", "-shm", "-journal"]) {
      await expect(backupSqliteStore(linked, `${store}${suffix}`, true)).rejects.toThrow(
        `${store}${suffix} is one of the store's own files: name another file`,
      );
    }
    expect(fs.statSync(store).ino).toBe(inode);
    expect(fs.readdirSync(real).filter((name) => name.includes("partial"))).toEqual([]);
  } finally {
    db.close();
  }
});

it("refuses a file that records no gateway migration, and writes nothing", async () => {
  const dir = path.join(dataDir, "unmigrated");
  fs.mkdirSync(dir);
  const store = path.join(dir, "gateway.db");
  const target = path.join(dataDir, "unmigrated.db");
  const refusal = (what: string) => `${store} is not a gateway store (${what}): nothing was written`;
  const noMigration = refusal("no gateway migration (0001_accounts_and_keys) is recorded in it");
  const cases: [string, (db: SQLite.Database) => void, string][] = [
    ["a 0-byte file", () => {}, refusal("an empty file")],
    ["another database", (db) => db.exec("create table t (x); insert into t values (1)"), noMigration],
    // A first migration that failed: the migrator made its table, and the transaction recording the row rolled back.
    [
      "a migrations table without the first migration",
      (db) => db.exec("create table kysely_migration (name varchar(255) primary key, timestamp varchar(255))"),
      noMigration,
    ],
  ];
  for (const [, make, message] of cases) {
    fs.rmSync(store, { force: true });
    fs.closeSync(fs.openSync(store, "w"));
    const db = new SQLite(store);
    make(db);
    db.close();
    await expect(backupSqliteStore(dir, target, true)).rejects.toThrow(message);
    expect(fs.readdirSync(dataDir).filter((name) => name.startsWith("unmigrated."))).toEqual([]);
  }
  fs.writeFileSync(store, "not a database at all, not even SQLite's header");
  await expect(backupSqliteStore(dir, target, true)).rejects.toThrow(refusal("not a SQLite database"));
  expect(fs.readdirSync(dataDir).filter((name) => name.startsWith("unmigrated."))).toEqual([]);

  fs.rmSync(store);
  const migrated = new SQLite(store);
  migrated.exec(firstMigration);
  migrated.close();
  expect((await backupSqliteStore(dir, target, false)).file).toBe(target);
});
