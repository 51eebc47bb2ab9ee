// `gateway keys create|list|revoke` as a separate process on the store of a running gateway: the key printed once
// (with --json: id, key, account_id, scopes), accepted by the gateway; scopes checked against the providers;
// revocation seen by the gateway. (SQLite only: the CLI opens the store the environment names.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./cli.ts";
import { startTestGateway, type TestGateway, testStore } from "./harness.ts";

let t: TestGateway;

const gatewayCli = (args: string[]) =>
  runCli(args, { env: { GATEWAY_DATA_DIR: t.config.dataDir, GATEWAY_DATABASE_URL: "" } });

const listKeys = (key: string) =>
  fetch(`${t.url}/v1/platform/list_api_keys`, { method: "POST", headers: { authorization: `Bearer ${key}` } });

describe.skipIf(testStore() !== "sqlite")("gateway keys", { timeout: 60_000 }, () => {
  beforeAll(async () => {
    t = await startTestGateway({ env: { GATEWAY_KEY_CACHE_TTL_MS: "200" } });
  });
  afterAll(() => t?.close());

  it("create --scopes '*' --json prints id, key, account_id and scopes, once; the gateway accepts the key", async () => {
    const created = await gatewayCli(["keys", "create", "--scopes", "*", "--json"]);
    expect(created.code).toBe(0);
    expect(created.stderr).toBe("");
    const printed = JSON.parse(created.stdout);
    expect(Object.keys(printed)).toEqual(["id", "key", "account_id", "scopes"]);
    expect(printed).toEqual({
      id: expect.stringMatching(/^key_[0-9A-Za-z]{16}$/),
      key: expect.stringMatching(/^gwk_[0-9A-Za-z]{32}$/),
      account_id: "default",
      scopes: ["*"],
    });
    expect((await listKeys(printed.key)).status).toBe(200);

    const listed = await gatewayCli(["keys", "list", "--json"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(printed.key);
    expect(JSON.parse(listed.stdout)).toContainEqual(
      expect.objectContaining({ id: printed.id, key_prefix: printed.key.slice(0, 8), revoked_at: null }),
    );
  });

  it("refuses scopes that are malformed or name nothing on this gateway, saying why for each", async () => {
    const refused = await gatewayCli(["keys", "create", "--scopes", "catalog,catalgo,opendata:holidays,Bad!"]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toBe(
      [
        "gateway: Invalid scopes",
        '  "catalgo": there is no provider "catalgo"; GET /v1/operations lists them',
        '  "opendata:holidays": the opendata provider has no operation "holidays"',
        '  "Bad!" is not a scope: use "*", "<provider_id>" or "<provider_id>:<operation_id>"',
        "",
      ].join("\n"),
    );
    const none = await gatewayCli(["keys", "create", "--scopes", " , "]);
    expect([none.code, none.stderr]).toEqual([
      1,
      'gateway: At least one scope is required\n  no scope was given: use "*", "<provider_id>" or "<provider_id>:<operation_id>"\n',
    ]);
  });

  it("list refuses an account the store does not have, rather than listing no keys", async () => {
    const listed = await gatewayCli(["keys", "list", "--account", "nosuch"]);
    expect([listed.code, listed.stdout, listed.stderr]).toEqual([
      1,
      "",
      "gateway: There is no account nosuch: create it with a key first (gateway keys create --account nosuch)\n",
    ]);
  });

  it("list names a key past its expiry expired, not active", async () => {
    const { key } = JSON.parse((await gatewayCli(["keys", "create", "--scopes", "*", "--json"])).stdout);
    const expiresAt = new Date(Math.ceil((Date.now() + 4_000) / 1000) * 1000).toISOString();
    const created = await fetch(`${t.url}/v1/platform/create_api_key`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "short-lived", scopes: ["catalog"], expires_at: expiresAt }),
    });
    expect(created.status).toBe(200);
    const { id } = ((await created.json()) as { data: { api_key: { id: string } } }).data.api_key;
    await new Promise((resolve) => setTimeout(resolve, Date.parse(expiresAt) - Date.now() + 50));
    const listed = await gatewayCli(["keys", "list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${id}  gwk_\\w{4}…  catalog  expired  short-lived$`, "m"));
  });

  it("list escapes control characters of a name chosen through the API, so that it cannot forge a line", async () => {
    const { key } = JSON.parse((await gatewayCli(["keys", "create", "--scopes", "*", "--json"])).stdout);
    const name = "\u001b[2K\rkey_0000000000000000  gwk_AAAA…  *  active\n\u202eevil";
    const created = await fetch(`${t.url}/v1/platform/create_api_key`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ name, scopes: ["catalog"] }),
    });
    expect(created.status).toBe(200);
    const { id } = ((await created.json()) as { data: { api_key: { id: string } } }).data.api_key;
    const listed = await gatewayCli(["keys", "list"]);
    expect(listed.code).toBe(0);
    const line = listed.stdout.split("\n").find((l) => l.startsWith(id));
    expect(line).toMatch(
      / {2}catalog {2}active {2}\\u001b\[2K\\u000dkey_0{16} {2}gwk_AAAA… {2}\* {2}active\\u000a\\u202eevil$/,
    );
    expect(listed.stdout).not.toContain("\u001b");
    expect(listed.stdout).not.toMatch(/^key_0{16}/m);
    // --json keeps the name as it is.
    const json = JSON.parse((await gatewayCli(["keys", "list", "--json"])).stdout) as { id: string; name: string }[];
    expect(json.find((k) => k.id === id)?.name).toBe(name);
  });

  it("revoke: the gateway refuses the key once its cache entry expires", async () => {
    const { key, id } = JSON.parse((await gatewayCli(["keys", "create", "--scopes", "platform", "--json"])).stdout);
    expect((await listKeys(key)).status).toBe(200);
    const revoked = await gatewayCli(["keys", "revoke", id]);
    expect(revoked).toMatchObject({ code: 0, stdout: `Revoked ${id}.\n` });
    const deadline = Date.now() + 10_000;
    let status = 200;
    while (status !== 401 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await listKeys(key)).status;
    }
    expect(status).toBe(401);
    expect(await gatewayCli(["keys", "revoke", "key_nope"])).toMatchObject({
      code: 1,
      stderr: "gateway: No API key key_nope\n",
    });
  });
});
