// A master-key rotation on one store: a node given the new key with the old one as GATEWAY_MASTER_KEY_PREVIOUS opens
// what the old key sealed (a provider token, a webhook secret, a cursor); the re-seal leaves nothing under the old key
// and records the new key's check value; then a node without the previous key starts, and one with only the old key
// (or the old key current again) is refused. A malformed GATEWAY_MASTER_KEY_PREVIOUS stops the start, named and not
// echoed. (SQLite and PostgreSQL.)
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { connect, type ShoppingSetup, shopping, startShopping } from "../../../test/connections/setup.ts";
import { startTestGateway, type TestGateway } from "../../../test/harness.ts";
import { type Receiver, startReceiver } from "../../../test/webhooks/receiver.ts";
import { hmac } from "../../../test/webhooks/setup.ts";
import { masterKeyCheckValue } from "./master-key-check.ts";
import { resealSecrets } from "./reseal.ts";
import { SecretBox } from "./secret-box.ts";

const oldKey = randomBytes(32);
const newKey = randomBytes(32);
const fastWorker = { GATEWAY_WEBHOOK_ALLOW_PRIVATE: "1", GATEWAY_WEBHOOK_POLL_INTERVAL_MS: "20" };

let s: ShoppingSetup;
let receiver: Receiver;
const nodes: TestGateway[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  // The first node runs no webhook worker: on SQLite the store's one worker is then the rotated node's.
  s = await startShopping({
    gateway: {
      env: { GATEWAY_MASTER_KEY: oldKey.toString("base64"), GATEWAY_NO_WEBHOOK_WORKER: "1", ...fastWorker },
    },
  });
});
afterAll(async () => {
  for (const node of nodes.reverse()) await node.close();
  await s?.close();
  await receiver?.close();
});

/** Another node on the first one's store and sandbox, with these keys. */
async function node(env: Record<string, string>): Promise<TestGateway> {
  const started = await startTestGateway({
    shareStoreWith: s.t,
    clock: s.clock,
    env: { GATEWAY_UPSTREAM_SHOPPING_URL: s.sandboxUrl, ...fastWorker, ...env },
  });
  nodes.push(started);
  return started;
}

/** Every value the store holds sealed by the secret box. */
async function sealedValues(): Promise<string[]> {
  const { db } = s.t.gateway.core.store;
  const secrets = await db.selectFrom("webhook_secrets").select("secret_sealed").execute();
  const tokens = await db.selectFrom("connections").select(["access_token", "refresh_token"]).execute();
  const verifiers = await db.selectFrom("connect_sessions").select("code_verifier").execute();
  return [
    ...secrets.map((row) => row.secret_sealed),
    ...tokens.flatMap((row) => [row.access_token, row.refresh_token]),
    ...verifiers.map((row) => row.code_verifier),
  ].filter((value): value is string => value !== null);
}

const opensUnder = (key: Buffer, sealed: string) => {
  try {
    new SecretBox(key).open(sealed);
    return true;
  } catch {
    return false;
  }
};

const checkValue = async () =>
  (
    await s.t.gateway.core.store.db
      .selectFrom("store_settings")
      .select("value")
      .where("name", "=", "master_key_check")
      .executeTakeFirstOrThrow()
  ).value;

const refusal = (origin: string) =>
  `${origin} is not the key this store's secrets are sealed with: give every node the store's key (in development ` +
  "without GATEWAY_MASTER_KEY, the one in <data dir>/master.key). During a rotation the key they are sealed with goes " +
  "in GATEWAY_MASTER_KEY_PREVIOUS until `gateway master-key reseal` has re-sealed them under the new key; after one, " +
  "every node needs the new key";

it("rotates the master key: the old key's secrets and cursors still open, the re-seal moves them to the new key", async () => {
  const first = await connect(s.t, "rotation_a");
  const second = await connect(s.t, "rotation_b");
  const endpoint = await s.t.call("platform", "set_webhook_endpoint", { url: receiver.url, event_types: ["*"] });
  expect(endpoint.status).toBe(200);
  const secret = ((await endpoint.json()) as { data: { secret: string } }).data.secret;
  const page = await s.t.call("platform", "list_connections", { provider_id: "shopping", limit: 1 });
  const cursor = ((await page.json()) as any).pagination.next_cursor as string;
  const sealedBefore = await sealedValues();
  expect(sealedBefore.length).toBeGreaterThanOrEqual(5);
  expect(sealedBefore.every((sealed) => opensUnder(oldKey, sealed))).toBe(true);

  // The new key alone, before anything was re-sealed: refused, the store's secrets being the old key's.
  await expect(node({ GATEWAY_MASTER_KEY: newKey.toString("base64") })).rejects.toThrow(
    new Error(refusal("GATEWAY_MASTER_KEY")),
  );

  const rotated = await node({
    GATEWAY_MASTER_KEY: newKey.toString("base64"),
    GATEWAY_MASTER_KEY_PREVIOUS: `${randomBytes(32).toString("hex")},${oldKey.toString("hex")}`,
  });
  // A provider token sealed under the old key.
  expect((await shopping(rotated, "get_cart", first.connection.id)).status).toBe(200);
  // A cursor sealed under a key derived from the old key.
  const next = await rotated.call("platform", "list_connections", { provider_id: "shopping", limit: 1, cursor });
  expect(next.status).toBe(200);
  const listed = [first.connection.id, second.connection.id];
  expect(listed).toContain(((await next.json()) as any).data.connections[0].id);
  // A webhook secret sealed under the old key signs the delivery: it verifies with the same whsec_ secret.
  expect((await rotated.call("platform", "send_test_event")).status).toBe(200);
  const [delivery] = await receiver.waitFor(1, 15_000);
  if (!delivery) throw new Error("no delivery");
  const t = Math.floor(s.clock.now() / 1000);
  expect(delivery.headers["gateway-signature"]).toBe(`t=${t},v2=${hmac(secret, `${t}.${delivery.body}`)}`);
  // What the rotated node sealed, it sealed under the new key; the store still records the old key's check value.
  expect(await checkValue()).toBe(masterKeyCheckValue(oldKey));

  // Two re-seals at once (two operators, say), in batches of two rows: each value is re-sealed once, by one of them.
  const keys = { key: newKey, previous: [oldKey], origin: "GATEWAY_MASTER_KEY" };
  const { db } = s.t.gateway.core.store;
  const reports = await Promise.all([resealSecrets(db, s.clock, keys, 2), resealSecrets(db, s.clock, keys, 2)]);
  const sum = (count: (report: (typeof reports)[number]) => number) => reports.reduce((n, r) => n + count(r), 0);
  // Two connections' access and refresh tokens, the endpoint's secret, and the verifiers the flows left.
  expect({
    webhook_secrets: sum((r) => r.resealed.webhook_secrets),
    connections: sum((r) => r.resealed.connections),
    connect_sessions: sum((r) => r.resealed.connect_sessions),
  }).toEqual({ webhook_secrets: 1, connections: 4, connect_sessions: sealedBefore.length - 5 });
  for (const report of reports) {
    expect([report.unopenable, report.remaining, report.checkRecorded]).toEqual([0, 0, true]);
  }
  const sealedAfter = await sealedValues();
  expect(sealedAfter.filter((sealed) => opensUnder(oldKey, sealed))).toEqual([]);
  expect(sealedAfter.every((sealed) => opensUnder(newKey, sealed))).toBe(true);
  expect(await checkValue()).toBe(masterKeyCheckValue(newKey));
  // A second run finds nothing left.
  expect((await resealSecrets(db, s.clock, keys)).resealed).toEqual({
    webhook_secrets: 0,
    connections: 0,
    connect_sessions: 0,
  });

  // The previous key can go: the rotated node restarts with the new key alone and uses the re-sealed token.
  await rotated.close();
  nodes.splice(nodes.indexOf(rotated), 1);
  const after = await node({ GATEWAY_MASTER_KEY: newKey.toString("base64") });
  expect((await shopping(after, "get_cart", second.connection.id)).status).toBe(200);
  // A node with only the old key is refused, saying why, and so is one that would seal under it again with the new
  // key as previous (nodes without a worker: on SQLite the other node runs it).
  const retired = new Error(
    "GATEWAY_MASTER_KEY is a master key this store retired: `gateway master-key reseal` re-sealed its secrets under " +
      "a new key, which every node needs as GATEWAY_MASTER_KEY (and a retired key cannot seal again)",
  );
  await expect(node({ GATEWAY_MASTER_KEY: oldKey.toString("hex"), GATEWAY_NO_WEBHOOK_WORKER: "1" })).rejects.toThrow(
    retired,
  );
  const backwards = node({
    GATEWAY_MASTER_KEY: oldKey.toString("base64"),
    GATEWAY_MASTER_KEY_PREVIOUS: newKey.toString("base64"),
    GATEWAY_NO_WEBHOOK_WORKER: "1",
  });
  await expect(backwards).rejects.toThrow(retired);
  // A key never seen by the store is refused as before.
  await expect(
    node({ GATEWAY_MASTER_KEY: randomBytes(32).toString("base64"), GATEWAY_NO_WEBHOOK_WORKER: "1" }),
  ).rejects.toThrow(new Error(refusal("GATEWAY_MASTER_KEY")));
});

it("refuses a malformed GATEWAY_MASTER_KEY_PREVIOUS, naming it and not echoing the value", async () => {
  const malformed = `${"s3cretValue".repeat(3)}x`;
  for (const [previous, named] of [
    [malformed, "GATEWAY_MASTER_KEY_PREVIOUS"],
    [`${oldKey.toString("base64")},${malformed}`, "GATEWAY_MASTER_KEY_PREVIOUS (key 2 of 2)"],
    [`${oldKey.toString("base64")},`, "GATEWAY_MASTER_KEY_PREVIOUS (key 2 of 2)"],
  ] as const) {
    const start = startTestGateway({
      shareStoreWith: s.t,
      env: { GATEWAY_MASTER_KEY: newKey.toString("base64"), GATEWAY_MASTER_KEY_PREVIOUS: previous },
    });
    const error = await start.then(
      () => undefined,
      (error: Error) => error,
    );
    expect(error?.message).toBe(`${named} must be 32 bytes as base64 (44 characters) or hex (64 characters)`);
    expect(error?.message).not.toContain("s3cret");
  }
});
