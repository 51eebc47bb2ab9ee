// A key revoked while this node reads it from the store (on PostgreSQL the read and the revocation run on two
// connections): the request already in flight may pass, but the row it read, from before the revocation, is not cached.
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../test/harness.ts";
import { holdFirstResult } from "../../test/held-result.ts";
import { ApiKeys } from "./api-keys.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t?.close();
});

it("refuses a key at once on the node that revoked it, though a read of it from before was in flight", async () => {
  // Holds the answer of the first SELECT that finds a row (the key's lookup) until released.
  const hold = holdFirstResult((result) => result.rows.length === 1);
  const { core } = t.gateway;
  const { key, view } = await core.apiKeys.create({ accountId: "default", name: "revoked", scopes: ["*"] });
  const keys = new ApiKeys(core.store.db.withPlugin(hold.plugin), core.clock, 60_000, core.apiKeys.scopeTargets);

  const inFlight = Promise.resolve(keys.authenticate(key));
  await hold.held;
  await keys.revoke("default", view.id);
  hold.release();
  expect((await inFlight).keyId).toBe(view.id);

  await expect(Promise.resolve().then(() => keys.authenticate(key))).rejects.toMatchObject({
    code: "unauthorized",
    message: "The API key has been revoked",
  });
});
