// `gateway master-key reseal` as a separate process on a gateway's store: refused with a key the store does not know,
// it re-seals what the previous key sealed and says what it did (people's words, or --json), and a second run finds
// nothing left. (SQLite only: the CLI opens the store the environment names.)
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { masterKeyCheckValue } from "../src/core/crypto/master-key-check.ts";
import { SecretBox } from "../src/core/crypto/secret-box.ts";
import { runCli } from "./cli.ts";
import { startTestGateway, type TestGateway, testStore } from "./harness.ts";

const oldKey = randomBytes(32);
const newKey = randomBytes(32);
let t: TestGateway;

const reseal = (keys: { GATEWAY_MASTER_KEY: string; GATEWAY_MASTER_KEY_PREVIOUS?: string }, json = false) =>
  runCli(["master-key", "reseal", ...(json ? ["--json"] : [])], {
    env: {
      GATEWAY_DATA_DIR: t.config.dataDir,
      GATEWAY_DATABASE_URL: "",
      GATEWAY_MASTER_KEY_PREVIOUS: undefined,
      ...keys,
    },
  });

describe.skipIf(testStore() !== "sqlite")("gateway master-key reseal", { timeout: 60_000 }, () => {
  beforeAll(async () => {
    t = await startTestGateway({
      env: { GATEWAY_MASTER_KEY: oldKey.toString("base64"), GATEWAY_WEBHOOK_ALLOW_PRIVATE: "1" },
    });
  });
  afterAll(() => t?.close());

  it("re-seals under the new key what the previous one sealed, says so, and finds nothing left the second time", async () => {
    for (const url of ["http://127.0.0.1:9/a", "http://127.0.0.1:9/b"]) {
      await t.gateway.core.accounts.ensure(url.slice(-1));
      const key = (await t.gateway.core.apiKeys.create({ accountId: url.slice(-1), scopes: ["*"] })).key;
      const response = await fetch(`${t.url}/v1/platform/set_webhook_endpoint`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ url, event_types: ["*"] }),
      });
      expect(response.status).toBe(200);
    }
    const oldValue = oldKey.toString("base64");
    const newValue = newKey.toString("base64");

    const refused = await reseal({ GATEWAY_MASTER_KEY: newValue });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toMatch(
      /^gateway: GATEWAY_MASTER_KEY is not the key this store's secrets are sealed with: .* `gateway master-key reseal` /,
    );
    expect(refused.stderr).not.toContain(newValue);

    const first = await reseal({ GATEWAY_MASTER_KEY: newValue, GATEWAY_MASTER_KEY_PREVIOUS: oldValue }, true);
    expect([first.code, first.stderr]).toEqual([0, ""]);
    expect(JSON.parse(first.stdout)).toEqual({
      resealed: { webhook_secrets: 2, provider_tokens: 0, connect_session_verifiers: 0 },
      already_current: 0,
      unopenable: 0,
      remaining: 0,
      check_recorded: true,
    });
    const { db } = t.gateway.core.store;
    const sealed = await db.selectFrom("webhook_secrets").select("secret_sealed").execute();
    expect(sealed.map((row) => new SecretBox(newKey).open(row.secret_sealed))).toEqual([
      expect.stringMatching(/^whsec_/),
      expect.stringMatching(/^whsec_/),
    ]);
    const check = await db.selectFrom("store_settings").select("value").executeTakeFirstOrThrow();
    expect(check.value).toBe(masterKeyCheckValue(newKey));

    const second = await reseal({ GATEWAY_MASTER_KEY: newValue, GATEWAY_MASTER_KEY_PREVIOUS: oldValue });
    expect([second.code, second.stderr]).toEqual([0, ""]);
    expect(second.stdout).toBe(
      "Re-sealed 0 secrets under GATEWAY_MASTER_KEY (0 webhook secrets, 0 provider tokens, 0 connect-session " +
        "verifiers); 2 were sealed under it already.\n" +
        "The store now records GATEWAY_MASTER_KEY's check value: remove GATEWAY_MASTER_KEY_PREVIOUS from every node.\n",
    );
  });
});
