// `gateway backup <file>` beside a serving gateway, and the restore a backup is for: a gateway started on the copy
// (with the master key kept apart) accepts the keys, sends the delivery that was pending (and leased by an attempt
// under way) when the copy was taken, signed with the endpoint's secret, and replays a completed idempotent request
// byte for byte. The command refuses what it must not do, and prints no secret. (SQLite: PostgreSQL is refused.)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SQLite from "better-sqlite3";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { verifySignatureHeader } from "../src/core/webhooks/signature.ts";
import { runCli, startCli } from "./cli.ts";
import { freePort, startTestGateway, testStore } from "./harness.ts";
import { type Receiver, startReceiver } from "./webhooks/receiver.ts";
import { fastWorker } from "./webhooks/setup.ts";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "backup-cli-"));
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const backupLine =
  /^Backed up (\S+) to (\S+) \((\d+) bytes, \d+ ms\)\.\nThe backup holds no master key: keep the master key \((\S+)\) apart from it; a restore needs that key\.\n$/;

/** `gateway serve` on a data directory, as an operator starts it after a restore. */
async function serveOn(dataDir: string) {
  const port = await freePort();
  const node = startCli(["serve"], {
    env: { ...fastWorker, GATEWAY_DATA_DIR: dataDir, GATEWAY_DATABASE_URL: "", GATEWAY_ENV: "test", PORT: `${port}` },
  });
  cleanups.push(() => node.stop());
  return { node, url: `http://127.0.0.1:${port}` };
}

describe.skipIf(testStore() !== "sqlite")("gateway backup", { timeout: 120_000 }, () => {
  it("copies a serving store; a gateway on the restored copy sends its pending delivery and replays its answers", async () => {
    let requests = 0;
    // The serving gateway's attempt is under way when the copy is taken: its delivery is leased in the copy.
    const receiver: Receiver = await startReceiver(() => (++requests === 1 ? "hang" : { status: 200 }));
    cleanups.push(() => receiver.close());
    // Its attempt outlasts the command's start, however slow.
    const t = await startTestGateway({ env: { ...fastWorker, GATEWAY_WEBHOOK_TIMEOUT_MS: "30000" } });
    let serving = true;
    cleanups.push(() => (serving ? t.close() : undefined));
    const masterKey = fs.readFileSync(path.join(t.config.dataDir, "master.key"));
    const endpoint = await t.call("platform", "set_webhook_endpoint", { url: receiver.url, event_types: ["*"] });
    const { secret } = ((await endpoint.json()) as { data: { secret: string } }).data;
    const idempotent = { "idempotency-key": "backup-drill-1" };
    const created = await t.call(
      "platform",
      "create_api_key",
      { name: "made before the backup", scopes: ["*"] },
      idempotent,
    );
    expect(created.status).toBe(200);
    const createdBytes = Buffer.from(await created.arrayBuffer());
    const sent = (await (await t.call("platform", "send_test_event")).json()) as { data: { event: { id: string } } };
    await receiver.waitFor(1);

    const file = path.join(root, "drill.db");
    // The gateway holds serve.lock all along: the command neither needs nor takes it.
    const backup = await runCli(["backup", file], {
      env: { GATEWAY_DATA_DIR: t.config.dataDir, GATEWAY_DATABASE_URL: "" },
    });
    expect([backup.code, backup.stderr]).toEqual([0, ""]);
    expect(backup.stdout).toMatch(backupLine);
    const [, source, written, bytes, keyFile] = backupLine.exec(backup.stdout) ?? [];
    expect([source, written, keyFile]).toEqual([
      path.join(t.config.dataDir, "gateway.db"),
      file,
      path.join(t.config.dataDir, "master.key"),
    ]);
    expect(Number(bytes)).toBe(fs.statSync(file).size);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    // One file, no -wal beside it, and the lease of the attempt under way in it.
    expect(fs.readdirSync(root)).toEqual(["drill.db"]);
    const copy = new SQLite(file, { readonly: true });
    expect(copy.pragma("journal_mode", { simple: true })).toBe("delete");
    expect(copy.prepare("select count(*) from webhook_deliveries where lease_until is not null").pluck().get()).toBe(1);
    copy.close();
    // The serving gateway goes on: it still answers, and a second node on its directory is still refused.
    expect((await t.call("platform", "list_api_keys")).status).toBe(200);
    const second = await runCli(["serve"], {
      env: { GATEWAY_DATA_DIR: t.config.dataDir, GATEWAY_DATABASE_URL: "", PORT: `${await freePort()}` },
      timeoutMs: 60_000,
    });
    expect(second.stderr).toContain("Another gateway is serving the SQLite store");
    serving = false;
    // Its attempt ends (the copy keeps the lease it had), and it stops without waiting out the attempt's timeout.
    receiver.answerHanging(200);
    await t.close();

    // Restore without the master key: a new development key is refused, and not kept.
    const keyless = path.join(root, "keyless");
    fs.mkdirSync(keyless);
    fs.copyFileSync(file, path.join(keyless, "gateway.db"));
    const refused = await runCli(["serve"], {
      env: { GATEWAY_DATA_DIR: keyless, GATEWAY_DATABASE_URL: "", GATEWAY_ENV: "test", PORT: `${await freePort()}` },
      timeoutMs: 60_000,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("is not the key this store's secrets are sealed with");
    expect(fs.existsSync(path.join(keyless, "master.key"))).toBe(false);

    // The restore: the copy as gateway.db in an empty data directory, with the same master key.
    const restored = path.join(root, "restored");
    fs.mkdirSync(restored);
    fs.copyFileSync(file, path.join(restored, "gateway.db"));
    fs.writeFileSync(path.join(restored, "master.key"), masterKey, { mode: 0o600 });
    const before = receiver.received.length;
    const node = await serveOn(restored);
    await node.node.waitForHttp(`${node.url}/readyz`);
    const [delivered] = (await receiver.waitFor(before + 1, 30_000)).slice(before);
    // The lease left in the copy is released at start: the attempt is made again under its number.
    expect(delivered?.headers).toMatchObject({
      "gateway-event-id": sent.data.event.id,
      "gateway-delivery-attempt": "1",
    });
    const header = delivered?.headers["gateway-signature"] as string;
    const rawBody = Buffer.from(delivered?.body ?? "");
    expect(() => verifySignatureHeader({ header, rawBody, secret, nowMs: Date.now() })).not.toThrow();

    const call = (operation: string, body: object, headers: Record<string, string> = {}) =>
      fetch(`${node.url}/v1/platform/${operation}`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.key}`, "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
    const replay = await call("create_api_key", { name: "made before the backup", scopes: ["*"] }, idempotent);
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(Buffer.from(await replay.arrayBuffer()).equals(createdBytes)).toBe(true);
    // The key made before the backup, shown once in that answer, works on the restored gateway.
    const { key } = (JSON.parse(createdBytes.toString("utf8")) as { data: { key: string } }).data;
    const listed = await fetch(`${node.url}/v1/platform/list_api_keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
    });
    expect(listed.status).toBe(200);
    // Nothing secret was printed: not the keys, not the webhook secret, not the master key.
    for (const value of [t.key, key, secret, masterKey.toString("utf8").trim()]) {
      expect(backup.stdout).not.toContain(value);
    }
  });

  it("refuses a file that exists unless --overwrite, the store itself, a data directory with no store, and an empty store", async () => {
    const dataDir = path.join(root, "store");
    const env = { GATEWAY_DATA_DIR: dataDir, GATEWAY_DATABASE_URL: "" };
    expect((await runCli(["migrate"], { env })).code).toBe(0);
    const file = path.join(root, "existing.db");
    fs.writeFileSync(file, "an earlier backup");
    const kept = await runCli(["backup", file], { env });
    expect([kept.code, kept.stdout, kept.stderr]).toEqual([
      1,
      "",
      `gateway: ${file} exists: name another file, or give --overwrite\n`,
    ]);
    expect(fs.readFileSync(file, "utf8")).toBe("an earlier backup");

    const replaced = await runCli(["backup", file, "--overwrite", "--json"], { env });
    expect([replaced.code, replaced.stderr]).toEqual([0, ""]);
    expect(JSON.parse(replaced.stdout)).toEqual({
      store: "sqlite",
      source: path.join(dataDir, "gateway.db"),
      file,
      bytes: fs.statSync(file).size,
      ms: expect.any(Number),
    });
    expect(fs.readFileSync(file).subarray(0, 16).toString("latin1")).toBe("SQLite format 3\0");

    const itself = await runCli(["backup", path.join(dataDir, "gateway.db"), "--overwrite"], { env });
    expect([itself.code, itself.stderr]).toEqual([
      1,
      `gateway: ${path.join(dataDir, "gateway.db")} is the store itself: name another file\n`,
    ]);

    const empty = path.join(root, "no-store");
    const none = await runCli(["backup", path.join(root, "none.db")], { env: { ...env, GATEWAY_DATA_DIR: empty } });
    expect([none.code, none.stderr]).toEqual([
      1,
      `gateway: There is no gateway store at ${path.join(empty, "gateway.db")}: give this command the gateway's GATEWAY_DATA_DIR\n`,
    ]);
    // Nothing was created: neither a store nor the data directory.
    expect(fs.existsSync(empty)).toBe(false);

    // A 0-byte gateway.db is no store: it would be copied as an empty database, and restore as an empty gateway.
    const unmigrated = path.join(root, "unmigrated");
    fs.mkdirSync(unmigrated);
    fs.writeFileSync(path.join(unmigrated, "gateway.db"), "");
    const blank = await runCli(["backup", path.join(root, "blank.db")], {
      env: { ...env, GATEWAY_DATA_DIR: unmigrated },
    });
    expect([blank.code, blank.stdout, blank.stderr]).toEqual([
      1,
      "",
      `gateway: ${path.join(unmigrated, "gateway.db")} is not a gateway store (an empty file): nothing was written\n`,
    ]);
    expect(fs.existsSync(path.join(root, "blank.db"))).toBe(false);
    expect(fs.readdirSync(root).filter((name) => name.includes("partial"))).toEqual([]);
  });
});

it("refuses a PostgreSQL store, pointing to pg_dump, without printing its URL", async () => {
  const refused = await runCli(["backup", path.join(root, "pg.db")], {
    env: { GATEWAY_DATABASE_URL: "postgres://gateway:s3cret-password@db.internal:5432/gateway" },
  });
  expect([refused.code, refused.stdout]).toEqual([1, ""]);
  expect(refused.stderr).toBe(
    "gateway: The store is PostgreSQL (GATEWAY_DATABASE_URL), which this command does not copy: back it up with " +
      "pg_dump or pg_basebackup (docs/backups.md)\n",
  );
  expect(fs.existsSync(path.join(root, "pg.db"))).toBe(false);
});
