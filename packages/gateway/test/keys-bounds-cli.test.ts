// `gateway keys create` keeps to the bounds create_api_key's schema puts on the same fields (apiKeyBounds): a rate
// limit and burst from 1 to 1,000,000 a minute, a name of at most 100 characters, at most 100 scopes. Out of bounds is
// refused before the store is touched, saying which flag and what it takes. (SQLite: a fresh data directory.)
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { apiKeyBounds } from "../src/core/api-keys.ts";
import { testStore } from "./harness.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "keys-bounds-"));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

function keysCreate(args: string[]) {
  const result = spawnSync(
    process.execPath,
    ["--import", "tsx", "packages/gateway/src/cli/main.ts", "keys", "create", "--json", ...args],
    { cwd: root, encoding: "utf8", env: { ...process.env, GATEWAY_DATA_DIR: dataDir, GATEWAY_DATABASE_URL: "" } },
  );
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe.skipIf(testStore() !== "sqlite")("gateway keys create within the API's bounds", { timeout: 60_000 }, () => {
  it("takes the largest rate limit and the longest name the API takes", () => {
    expect(apiKeyBounds).toEqual({ nameMaxLength: 100, scopesMaxItems: 100, rateLimitMax: 1_000_000 });
    const created = keysCreate(["--rate-limit", "1000000:1000000", "--name", "é".repeat(100)]);
    expect(created.stderr).toBe("");
    expect(created.status).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ account_id: "default", scopes: ["*"] });
  });

  it.each(["1000001", "1000:1000001", "99999999999999999999", "0", "10:0"])("refuses --rate-limit %s", (value) => {
    expect(keysCreate(["--rate-limit", value])).toEqual({
      status: 1,
      stdout: "",
      stderr: `gateway: --rate-limit takes PER_MINUTE[:BURST], each from 1 to 1000000, got "${value}"\n`,
    });
  });

  it("refuses a name over 100 characters, and over 100 scopes", () => {
    expect(keysCreate(["--name", "x".repeat(5000)])).toEqual({
      status: 1,
      stdout: "",
      stderr: "gateway: --name takes at most 100 characters, got 5000\n",
    });
    expect(keysCreate(["--scopes", Array(101).fill("catalog").join(",")])).toEqual({
      status: 1,
      stdout: "",
      stderr: "gateway: --scopes takes at most 100 scopes, got 101\n",
    });
  });
});
