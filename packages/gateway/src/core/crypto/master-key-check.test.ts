// Two nodes on one store must share the master key: a node with another key is refused at start, saying why, and
// the store is left as it was; the same key starts. (SQLite and PostgreSQL.)
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../../test/harness.ts";
import { masterKeyCheckValue } from "./master-key-check.ts";

const keyA = randomBytes(32);
let first: TestGateway;
beforeAll(async () => {
  first = await startTestGateway({
    env: { GATEWAY_MASTER_KEY: keyA.toString("base64"), GATEWAY_WEBHOOK_ALLOW_PRIVATE: "1" },
  });
});
afterAll(async () => first?.close());

it("refuses a node whose master key is not the store's, and starts one whose key is", async () => {
  const other = startTestGateway({
    shareStoreWith: first,
    env: { GATEWAY_MASTER_KEY: randomBytes(32).toString("base64") },
  });
  await expect(other).rejects.toThrow(
    "GATEWAY_MASTER_KEY is not the key this store's secrets were sealed with: give every node the key the first one used (in development, the one in <data dir>/master.key)",
  );
  const { db } = first.gateway.core.store;
  expect(await db.selectFrom("store_settings").select(["name", "value"]).execute()).toEqual([
    { name: "master_key_check", value: masterKeyCheckValue(keyA) },
  ]);
  expect((await first.call("platform", "list_api_keys")).status).toBe(200);

  const same = await startTestGateway({ shareStoreWith: first, env: { GATEWAY_MASTER_KEY: keyA.toString("hex") } });
  try {
    expect((await same.call("platform", "list_api_keys")).status).toBe(200);
  } finally {
    await same.close();
  }
});

it("on a store with sealed secrets and no check value yet, refuses a key that does not open them", async () => {
  const endpoint = await first.call("platform", "set_webhook_endpoint", {
    url: "http://127.0.0.1:9/hooks",
    event_types: ["*"],
  });
  expect(endpoint.status).toBe(200);
  const { db } = first.gateway.core.store;
  // A store created before the check value existed: its secrets, and no value.
  await db.deleteFrom("store_settings").where("name", "=", "master_key_check").execute();
  const other = startTestGateway({
    shareStoreWith: first,
    env: { GATEWAY_MASTER_KEY: randomBytes(32).toString("base64") },
  });
  await expect(other).rejects.toThrow("GATEWAY_MASTER_KEY is not the key this store's secrets were sealed with");
  expect(await db.selectFrom("store_settings").selectAll().execute()).toEqual([]);

  const same = await startTestGateway({ shareStoreWith: first, env: { GATEWAY_MASTER_KEY: keyA.toString("base64") } });
  await same.close();
  expect(await db.selectFrom("store_settings").select(["name", "value"]).execute()).toEqual([
    { name: "master_key_check", value: masterKeyCheckValue(keyA) },
  ]);
});
