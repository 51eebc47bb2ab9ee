// `gateway serve`'s first start on an empty store, with standard output a pipe (a log collector, not a terminal):
// the log stays JSON lines and never holds the key; the key is in a file of the data directory only its owner can
// read, and it works. Commands that failed on the store before (a key refused, an account without a key) neither leave
// an account behind nor keep the first start from making its key; a second start makes none. (SQLite: a fresh data
// directory.)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SQLite from "better-sqlite3";
import { afterAll, expect, it } from "vitest";
import { runCli, startCli } from "./cli.ts";
import { freePort, testStore } from "./harness.ts";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "serve-first-start-"));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

it.skipIf(testStore() !== "sqlite")(
  "writes the first key to a file only its owner can read, and logs where, never the key",
  { timeout: 120_000 },
  async () => {
    const env = { GATEWAY_DATA_DIR: dataDir, GATEWAY_DATABASE_URL: "" };
    const refused = await runCli(["keys", "create", "--account", "ghost", "--scopes", "catalgo"], { env });
    expect(refused.code).toBe(1);
    const accounts = () => {
      const db = new SQLite(path.join(dataDir, "gateway.db"), { readonly: true });
      try {
        return db.prepare("select id from accounts order by id").pluck().all();
      } finally {
        db.close();
      }
    };
    expect(accounts()).toEqual([]);
    // An account made without a key (as a connect session started from the CLI makes one).
    const db = new SQLite(path.join(dataDir, "gateway.db"));
    db.prepare("insert into accounts (id, name, created_at) values ('acme', 'acme', 0)").run();
    db.close();

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const serve = startCli(["serve"], { env: { ...env, PORT: String(port) } });
    try {
      await serve.waitForLine('"msg":"gateway listening"');
      const file = path.join(dataDir, "first-api-key");
      const key = fs.readFileSync(file, "utf8").trimEnd();
      expect(key).toMatch(/^gwk_[0-9A-Za-z]{32}$/);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      // The store too (events hold end users' names and addresses), and the log files SQLite opens beside it.
      const storeFiles = fs.readdirSync(dataDir).filter((name) => name.startsWith("gateway.db"));
      expect(storeFiles).toContain("gateway.db-wal");
      for (const name of storeFiles) expect(fs.statSync(path.join(dataDir, name)).mode & 0o777, name).toBe(0o600);

      const lines = serve
        .stdout()
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines.find((line) => line.file === file)).toMatchObject({
        level: 40,
        account: "default",
        key_id: expect.stringMatching(/^key_/),
      });
      expect(serve.stdout()).not.toContain(key);
      expect(serve.stderr()).not.toContain(key);

      const response = await fetch(`${url}/v1/platform/list_api_keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}` },
      });
      expect(response.status).toBe(200);
    } finally {
      await serve.stop();
    }
    expect(accounts()).toEqual(["acme", "default"]);

    fs.rmSync(path.join(dataDir, "first-api-key"));
    const again = startCli(["serve"], { env: { ...env, PORT: String(await freePort()) } });
    try {
      await again.waitForLine('"msg":"gateway listening"');
      expect(fs.existsSync(path.join(dataDir, "first-api-key"))).toBe(false);
      expect(again.stdout()).not.toContain("first API key");
    } finally {
      await again.stop();
    }
  },
);
