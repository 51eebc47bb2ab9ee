// Idempotency records on the store under test (SQLite, and PostgreSQL in its project): repeats of completed keys in one
// turn of the event loop share their statements — one claim attempt and one read of the records in their way.
import type { KyselyPlugin } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../../test/harness.ts";
import { deleteRecorder, turnsDuring } from "../../../test/purges.ts";
import { IdempotencyRecords } from "./records.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
  await t.gateway.core.accounts.ensure("rec-a", "records");
});
afterAll(async () => t?.close());

/** Records on the test store whose statements are counted as they are run. */
function countedRecords() {
  const counted = { statements: 0 };
  const counter: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      counted.statements++;
      return args.result;
    },
  };
  return {
    counted,
    records: new IdempotencyRecords(t.gateway.core.store.db.withPlugin(counter), t.gateway.core.clock),
  };
}

it("answers repeats of five completed keys sent in one turn with two statements, each its own record", async () => {
  const { counted, records } = countedRecords();
  const refs = ["one", "two", "three", "four", "five"].map((name) => ({ accountId: "rec-a", keyHash: `hash-${name}` }));
  for (const [i, ref] of refs.entries()) {
    const outcome = await records.claim(ref, `fingerprint-${i}`);
    if (outcome.kind !== "claimed") throw new Error(`expected a claim, got ${outcome.kind}`);
    const response = { status: 200 + i, contentType: "application/json", sealedBody: `sealed-${i}` };
    expect(await records.complete({ ref, token: outcome.token, fingerprint: `fingerprint-${i}` }, response)).toBe(true);
  }

  counted.statements = 0;
  const outcomes = await Promise.all(refs.map((ref, i) => records.claim(ref, `fingerprint-${i}`)));
  expect(outcomes).toEqual(
    refs.map((_, i) => ({
      kind: "completed",
      response: { status: 200 + i, contentType: "application/json", sealedBody: `sealed-${i}` },
    })),
  );
  // The claim attempts of the turn (refused: the keys have records), then one read of those records.
  expect(counted.statements).toBe(2);

  // A different fingerprint is still told apart, read the same way.
  const first = { accountId: "rec-a", keyHash: "hash-one" };
  expect(await records.claim(first, "another request")).toEqual({ kind: "reused" });
});

it("purges a backlog of expired records a thousand at a time, letting the event loop turn between batches", async () => {
  await t.gateway.core.accounts.ensure("rec-purge", "purge");
  const db = t.gateway.core.store.db;
  const now = t.gateway.core.clock.now();
  const record = (name: string, expiresAt: number) => ({
    account_id: "rec-purge",
    key_hash: `hash-${name}`,
    fingerprint: "fingerprint",
    state: "completed" as const,
    claim_token: "token",
    lease_until: expiresAt,
    status: 200,
    content_type: "application/json",
    body: "sealed",
    created_at: expiresAt - 86_400_000,
    expires_at: expiresAt,
  });
  const rows = [
    ...Array.from({ length: 2_500 }, (_, i) => record(`expired-${i}`, now - 5_000 + i)),
    ...Array.from({ length: 10 }, (_, i) => record(`live-${i}`, now + 60_000 + i)),
  ];
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto("idempotency_keys")
      .values(rows.slice(i, i + 500))
      .execute();

  const recorder = deleteRecorder();
  const { result: purged, turns } = await turnsDuring(() =>
    new IdempotencyRecords(db.withPlugin(recorder.plugin), t.gateway.core.clock).purgeExpired(),
  );

  expect(purged).toBe(2_500);
  expect(recorder.deletes).toEqual([
    ["idempotency_keys", 1_000],
    ["idempotency_keys", 1_000],
    ["idempotency_keys", 500],
  ]);
  expect(turns).toBeGreaterThanOrEqual(2);
  const left = await db
    .selectFrom("idempotency_keys")
    .select("key_hash")
    .where("account_id", "=", "rec-purge")
    .execute();
  expect(left.map((row) => row.key_hash).sort()).toEqual(rows.slice(2_500).map((row) => row.key_hash));
});
