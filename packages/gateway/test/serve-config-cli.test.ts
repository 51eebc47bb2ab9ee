// `gateway serve` with a configuration value it does not take: it exits with 1 and an error naming the variable or
// flag and what it takes, before it creates anything in the data directory (no store, no development master key, no
// first API key). (SQLite: a fresh data directory each time; PostgreSQL changes nothing here.)
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { testStore } from "./harness.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const dataDirs: string[] = [];
afterAll(() => {
  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
});

function serve(env: Record<string, string>, args: string[] = []) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "serve-config-"));
  dataDirs.push(dataDir);
  const result = spawnSync(
    process.execPath,
    ["--import", "tsx", "packages/gateway/src/cli/main.ts", "serve", ...args],
    {
      cwd: root,
      encoding: "utf8",
      // A start that is not refused would serve: the timeout ends it, and the test fails on its status.
      timeout: 20_000,
      env: { ...process.env, GATEWAY_DATA_DIR: dataDir, GATEWAY_DATABASE_URL: "", PORT: "19890", ...env },
    },
  );
  return { status: result.status, stderr: result.stderr, created: fs.readdirSync(dataDir) };
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
  ])("%j", (env, message) => {
    expect(serve(env)).toEqual({ status: 1, stderr: `gateway: ${message}\n`, created: [] });
  });

  it("names --port and --host when the flags are wrong", () => {
    expect(serve({}, ["--port", "abc"])).toEqual({
      status: 1,
      stderr: 'gateway: --port must be a port number (0 to 65535), got "abc"\n',
      created: [],
    });
    expect(serve({}, ["--host", "999.1.1.1"])).toEqual({
      status: 1,
      stderr: 'gateway: --host must be an IP address or a host name to listen on, got "999.1.1.1"\n',
      created: [],
    });
  });
});
