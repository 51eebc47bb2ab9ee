// `gateway serve` with a configuration value it does not take: it exits with 1 and an error naming the variable or
// flag and what it takes, before it creates anything in the data directory (no store, no development master key, no
// first API key). (SQLite: a fresh data directory each time; PostgreSQL changes nothing here.)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./cli.ts";
import { testStore } from "./harness.ts";

const dataDirs: string[] = [];
afterAll(() => {
  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
});

async function serve(env: Record<string, string>, args: string[] = []) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "serve-config-"));
  dataDirs.push(dataDir);
  const { code, stderr } = await runCli(["serve", ...args], {
    env: { GATEWAY_DATA_DIR: dataDir, GATEWAY_DATABASE_URL: "", PORT: "19890", ...env },
    // A start that is not refused would serve: the timeout ends it, and the test fails on its code.
    timeoutMs: 20_000,
  });
  return { code, stderr, created: fs.readdirSync(dataDir) };
}

describe.skipIf(testStore() !== "sqlite")("gateway serve with a value it does not take", { timeout: 60_000 }, () => {
  it.each([
    [{ GATEWAY_ENV: "prod" }, 'GATEWAY_ENV must be development, production or test, got "prod"'],
    [
      { GATEWAY_NO_SANDBOXES: "on" },
      'GATEWAY_NO_SANDBOXES is a switch: on with 1, true or yes, off with 0, false, no or empty; got "on"',
    ],
    [
      { GATEWAY_WEBHOOK_POLL_INTERVAL_MS: "3000000000" },
      'GATEWAY_WEBHOOK_POLL_INTERVAL_MS must be a number of milliseconds from 1 to 2147483647, got "3000000000"',
    ],
    [
      { GATEWAY_LOG_LEVEL: "verbose" },
      'GATEWAY_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"',
    ],
    [{ HOST: "999.1.1.1" }, 'HOST must be an IP address or a host name to listen on, got "999.1.1.1"'],
    [
      { GATEWAY_MASTER_KEY: "notakey" },
      "GATEWAY_MASTER_KEY must be 32 bytes as base64 (44 characters) or hex (64 characters)",
    ],
    [
      { GATEWAY_ENV: "production", GATEWAY_MASTER_KEY: "" },
      "GATEWAY_MASTER_KEY is required in production (32 random bytes as base64: `openssl rand -base64 32`)",
    ],
    [
      { GATEWAY_NO_SANDBOXES: "1" },
      "No upstream configured for catalog, homegoods, opendata, shopping, dining, delivery, rides, payments (set GATEWAY_UPSTREAM_<ID>_URL)",
    ],
  ])("%j", async (env, message) => {
    expect(await serve(env)).toEqual({ code: 1, stderr: `gateway: ${message}\n`, created: [] });
  });

  it("names --port and --host when the flags are wrong", async () => {
    expect(await serve({}, ["--port", "abc"])).toEqual({
      code: 1,
      stderr: 'gateway: --port must be a port number (0 to 65535), got "abc"\n',
      created: [],
    });
    expect(await serve({}, ["--port", ""])).toEqual({
      code: 1,
      stderr: 'gateway: --port must be a port number (0 to 65535), got ""\n',
      created: [],
    });
    expect(await serve({}, ["--host", "999.1.1.1"])).toEqual({
      code: 1,
      stderr: 'gateway: --host must be an IP address or a host name to listen on, got "999.1.1.1"\n',
      created: [],
    });
  });

  it("names GATEWAY_DATA_DIR when it cannot be used: files it cannot open, a store that is not SQLite, a file, a path under a file, under /proc", async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "serve-config-")), "a-file");
    dataDirs.push(path.dirname(file));
    fs.writeFileSync(file, "");
    // A data directory whose files cannot be opened (here the serving lock is a directory; unwritable works alike).
    const locked = fs.mkdtempSync(path.join(os.tmpdir(), "serve-config-"));
    dataDirs.push(locked);
    fs.mkdirSync(path.join(locked, "serve.lock"));
    // A gateway.db that is not a SQLite database (another file put in its place, or a damaged header).
    const notSqlite = fs.mkdtempSync(path.join(os.tmpdir(), "serve-config-"));
    dataDirs.push(notSqlite);
    fs.writeFileSync(path.join(notSqlite, "gateway.db"), "not a database, but long enough to have a header");
    const cases = [
      [locked, `unable to open database file (${path.join(locked, "serve.lock")})`],
      [notSqlite, `file is not a database (${path.join(notSqlite, "gateway.db")})`],
      [file, "it is not a directory"],
      [path.join(file, "data"), `ENOTDIR: not a directory, mkdir '${path.join(file, "data")}'`],
      // Node 20's recursive mkdirSync loops for ever on such a path: the start must end, saying why.
      ["/proc/no-such-directory", "ENOENT: no such file or directory, mkdir '/proc/no-such-directory'"],
    ];
    for (const [dir, reason] of cases) {
      const { code, stderr } = await runCli(["serve"], {
        env: { GATEWAY_DATA_DIR: dir as string, GATEWAY_DATABASE_URL: "", PORT: "19890" },
        timeoutMs: 20_000,
      });
      expect({ code, stderr }).toEqual({
        code: 1,
        stderr: `gateway: GATEWAY_DATA_DIR ${dir} cannot be used: ${reason}\n`,
      });
    }
  });

  it("says a usage error of any command as its own, with the gateway: prefix", async () => {
    const { code, stderr } = await runCli(["keys", "create", "--bogus"]);
    expect(code).toBe(1);
    expect(stderr.split("\n")[0]).toBe("gateway: unknown option '--bogus'");
  });
});
