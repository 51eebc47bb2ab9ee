// The key cache under keys that do not exist: anyone can send them, without a key of their own. They are cached apart
// from the keys found, so that however many arrive, a key in use is still answered from the cache, not from the store.
// The cache's TTL runs on the monotonic clock: the gateway's time set back does not keep an entry longer.
import type { KyselyPlugin } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../test/harness.ts";
import { ApiKeys, keyCacheEntries } from "./api-keys.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t?.close();
});

it("keeps a key in use cached while more unknown keys arrive than the cache holds", async () => {
  let reads = 0;
  const counter: KyselyPlugin = {
    transformQuery: (args) => {
      if (args.node.kind === "SelectQueryNode") reads++;
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  const { core } = t.gateway;
  // A TTL the run cannot outlast: the 10,001 lookups below take over a minute on a loaded machine, and an entry that
  // lapsed meanwhile would be read again however the cache keeps it.
  const keys = new ApiKeys(core.store.db.withPlugin(counter), core.clock, 3_600_000, core.apiKeys.scopeTargets);
  const { key } = await core.apiKeys.create({ accountId: "default", name: "in use", scopes: ["*"] });

  await keys.authenticate(key);
  expect(reads).toBe(1);
  await keys.authenticate(key);
  expect(reads).toBe(1);

  const unknown = (i: number) => `gwk_${String(i).padStart(32, "0")}`;
  for (let i = 0; i <= keyCacheEntries; i++) {
    await expect(Promise.resolve().then(() => keys.authenticate(unknown(i)))).rejects.toMatchObject({
      code: "unauthorized",
      message: "The API key is not valid",
    });
  }
  expect(reads).toBe(1 + keyCacheEntries + 1);

  // The key in use is still answered from the cache; so is the newest unknown key, and the oldest was dropped.
  expect((await keys.authenticate(key)).accountId).toBe("default");
  await expect(Promise.resolve().then(() => keys.authenticate(unknown(keyCacheEntries)))).rejects.toMatchObject({
    code: "unauthorized",
  });
  expect(reads).toBe(1 + keyCacheEntries + 1);
  await expect(Promise.resolve().then(() => keys.authenticate(unknown(0)))).rejects.toMatchObject({
    code: "unauthorized",
  });
  expect(reads).toBe(1 + keyCacheEntries + 2);
}, 120_000);

it("refuses a key revoked elsewhere once the TTL has passed, though the gateway's clock was set back meanwhile", async () => {
  const { core } = t.gateway;
  let time = 1_800_000_000_000;
  const keys = new ApiKeys(core.store.db, { now: () => time }, 200, core.apiKeys.scopeTargets);
  const { key, view } = await core.apiKeys.create({ accountId: "default", name: "stepped", scopes: ["*"] });
  expect((await keys.authenticate(key)).keyId).toBe(view.id);

  // An NTP step, or the database server's clock followed back; then another node (or `gateway keys revoke`) revokes.
  time -= 10 * 60_000;
  await core.apiKeys.revoke("default", view.id);
  await new Promise((resolve) => setTimeout(resolve, 300));
  await expect(Promise.resolve().then(() => keys.authenticate(key))).rejects.toMatchObject({
    code: "unauthorized",
    message: "The API key has been revoked",
  });
});

it("drops a key from this node's cache once its revocation is written, though reading it back then fails", async () => {
  let failReads = false;
  const failing: KyselyPlugin = {
    transformQuery: (args) => {
      if (failReads && args.node.kind === "SelectQueryNode") throw new Error("the store stopped answering");
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  const { core } = t.gateway;
  const keys = new ApiKeys(core.store.db.withPlugin(failing), core.clock, 60_000, core.apiKeys.scopeTargets);
  const { key, view } = await core.apiKeys.create({ accountId: "default", name: "revoked half-way", scopes: ["*"] });
  expect((await keys.authenticate(key)).accountId).toBe("default");

  failReads = true;
  await expect(keys.revoke("default", view.id)).rejects.toThrow("the store stopped answering");
  failReads = false;
  await expect(Promise.resolve().then(() => keys.authenticate(key))).rejects.toMatchObject({
    code: "unauthorized",
    message: "The API key has been revoked",
  });
});
