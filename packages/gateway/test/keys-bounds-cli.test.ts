// `gateway keys create` keeps to the bounds create_api_key's schema puts on the same fields (apiKeyBounds): a rate
// limit and burst from 1 to 1,000,000 a minute, a name of at most 100 characters, at most 100 scopes. Out of bounds is
// refused before the store is touched, saying which flag and what it takes; so is the account the public demo runs as.
// (SQLite: a fresh data directory.)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { apiKeyBounds } from "../src/core/api-keys.ts";
import { runCli } from "./cli.ts";
import { testStore } from "./harness.ts";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "keys-bounds-"));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const keysCreate = (args: string[]) =>
  runCli(["keys", "create", "--json", ...args], { env: { GATEWAY_DATA_DIR: dataDir, GATEWAY_DATABASE_URL: "" } });

describe.skipIf(testStore() !== "sqlite")("gateway keys create within the API's bounds", { timeout: 60_000 }, () => {
  it("takes the largest rate limit and the longest name the API takes", async () => {
    expect(apiKeyBounds).toEqual({ nameMaxLength: 100, scopesMaxItems: 100, rateLimitMax: 1_000_000 });
    const created = await keysCreate(["--rate-limit", "1000000:1000000", "--name", "é".repeat(100)]);
    // The data directory was empty: the command says that it made a new store, where no gateway may look.
    expect(created.stderr).toBe(
      `Note: there was no gateway store at ${path.join(dataDir, "gateway.db")}, so this command created an empty one. A gateway serving another store will not see what it writes: give this command the gateway's GATEWAY_DATA_DIR.\n`,
    );
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ account_id: "default", scopes: ["*"] });
    const again = await keysCreate(["--name", "second"]);
    expect([again.code, again.stderr]).toEqual([0, ""]);
  });

  it.each(["1000001", "1000:1000001", "99999999999999999999", "0", "10:0"])(
    "refuses --rate-limit %s",
    async (value) => {
      expect(await keysCreate(["--rate-limit", value])).toEqual({
        code: 1,
        stdout: "",
        stderr: `gateway: --rate-limit takes PER_MINUTE[:BURST], each from 1 to 1000000, got "${value}"\n`,
      });
    },
  );

  it("refuses a name over 100 characters, and over 100 scopes", async () => {
    expect(await keysCreate(["--name", "x".repeat(5000)])).toEqual({
      code: 1,
      stdout: "",
      stderr: "gateway: --name takes at most 100 characters, got 5000\n",
    });
    expect(await keysCreate(["--scopes", Array(101).fill("catalog").join(",")])).toEqual({
      code: 1,
      stdout: "",
      stderr: "gateway: --scopes takes at most 100 scopes, got 101\n",
    });
  });

  it("refuses the account the public demo runs as, creating nothing", async () => {
    expect(await keysCreate(["--account", "demo"])).toEqual({
      code: 1,
      stdout: "",
      stderr: 'gateway: "demo" is the account the public demo runs as, which no tenant may have: choose another id\n',
    });
    const listed = await runCli(["keys", "list", "--account", "demo"], {
      env: { GATEWAY_DATA_DIR: dataDir, GATEWAY_DATABASE_URL: "" },
    });
    expect(listed).toEqual({
      code: 1,
      stdout: "",
      stderr: 'gateway: "demo" is the account the public demo runs as, which no tenant may have: choose another id\n',
    });
  });
});
