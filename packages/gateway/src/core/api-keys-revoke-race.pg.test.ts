// A key revoked while this node reads it from the store (on PostgreSQL the read and the revocation run on two
// connections): the request already in flight may pass, but the row it read, from before the revocation, is not cached.
import type { KyselyPlugin } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../test/harness.ts";
import { ApiKeys } from "./api-keys.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t?.close();
});

it("refuses a key at once on the node that revoked it, though a read of it from before was in flight", async () => {
  let held: (() => void) | undefined;
  let seen: () => void = () => {};
  const read = new Promise<void>((resolve) => {
    seen = resolve;
  });
  // Holds the answer of the first SELECT (the key's lookup) until released.
  const gate: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      if (held === undefined && Array.isArray(args.result.rows) && args.result.rows.length === 1) {
        await new Promise<void>((resolve) => {
          held = resolve;
          seen();
        });
      }
      return args.result;
    },
  };
  const { core } = t.gateway;
  const { key, view } = await core.apiKeys.create({ accountId: "default", name: "revoked", scopes: ["*"] });
  const keys = new ApiKeys(core.store.db.withPlugin(gate), core.clock, 60_000, core.apiKeys.scopeTargets);

  const inFlight = Promise.resolve(keys.authenticate(key));
  await read;
  await keys.revoke("default", view.id);
  held?.();
  expect((await inFlight).keyId).toBe(view.id);

  await expect(Promise.resolve().then(() => keys.authenticate(key))).rejects.toMatchObject({
    code: "unauthorized",
    message: "The API key has been revoked",
  });
});
