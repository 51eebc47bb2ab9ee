// When a key's record stops counting, to the millisecond: a running claim is taken over once its lease has lapsed
// (continuing the same use of the key), and a completed one is new again once its retention is over, after which the
// new use is remembered for a retention of its own.
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../../test/harness.ts";
import { IdempotencyRecords } from "./records.ts";

let t: TestGateway;
let time = 1_800_000_000_000;
let records: IdempotencyRecords;
const timings = { retentionMs: 86_400_000, leaseMs: 30_000 };
const response = { status: 201, contentType: "application/json", sealedBody: "sealed" };

beforeAll(async () => {
  t = await startTestGateway();
  await t.gateway.core.accounts.ensure("rec-timing", "timing");
  records = new IdempotencyRecords(t.gateway.core.store.db, { now: () => time }, timings);
});
afterAll(async () => t?.close());

it("takes over a running claim at the end of its lease, keeping when the use of the key began", async () => {
  const ref = { accountId: "rec-timing", keyHash: "hash-lease" };
  const started = time;
  expect(await records.claim(ref, "fp")).toMatchObject({ kind: "claimed", since: started, resumed: false });
  time = started + timings.leaseMs - 1;
  expect(await records.claim(ref, "fp")).toEqual({ kind: "running" });
  time = started + timings.leaseMs;
  expect(await records.claim(ref, "fp")).toMatchObject({ kind: "claimed", since: started, resumed: true });
});

it("forgets a completed key at the end of its retention, and remembers its new use for a whole retention", async () => {
  const ref = { accountId: "rec-timing", keyHash: "hash-retention" };
  const first = time;
  const claim = await records.claim(ref, "fp-1");
  if (claim.kind !== "claimed") throw new Error(`expected a claim, got ${claim.kind}`);
  expect(await records.complete({ ref, token: claim.token, fingerprint: "fp-1" }, response)).toBe(true);

  time = first + timings.retentionMs - 1;
  expect(await records.claim(ref, "fp-2")).toEqual({ kind: "reused" });
  expect(await records.claim(ref, "fp-1")).toEqual({ kind: "completed", response });

  time = first + timings.retentionMs;
  const again = await records.claim(ref, "fp-2");
  expect(again).toMatchObject({ kind: "claimed", since: time, resumed: false });
  if (again.kind !== "claimed") return;
  expect(await records.complete({ ref, token: again.token, fingerprint: "fp-2" }, response)).toBe(true);

  time += timings.retentionMs - 1;
  expect(await records.claim(ref, "fp-2")).toEqual({ kind: "completed", response });
  expect(await records.claim(ref, "fp-1")).toEqual({ kind: "reused" });
});
