// A node whose machine clock is 10 minutes ahead, on PostgreSQL: the gateway takes its time from the database server,
// so the claims it leaves, the claims of other nodes it meets and the webhooks it signs agree with the other nodes and
// with the receivers, whose clocks are right.
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { verifyWebhook } from "../../sdk/src/index.ts";
import { IdempotencyRecords } from "../src/core/idempotency/records.ts";
import { startTestGateway, type TestGateway } from "./harness.ts";
import { type Receiver, startReceiver } from "./webhooks/receiver.ts";
import { fastWorker, sendTestEvent, setEndpoint } from "./webhooks/setup.ts";

const skewMs = 10 * 60_000;
const realNow = Date.now.bind(Date);
let t: TestGateway;
let receiver: Receiver;
/** Another node, whose clock is right. */
let onTime: IdempotencyRecords;

beforeAll(async () => {
  vi.spyOn(Date, "now").mockImplementation(() => realNow() + skewMs);
  receiver = await startReceiver();
  t = await startTestGateway({ env: fastWorker });
  onTime = new IdempotencyRecords(t.gateway.core.store.db, { now: realNow });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
  vi.restoreAllMocks();
});

const ref = (keyHash: string) => ({ accountId: "default", keyHash });

it("keeps its hands off an idempotency claim another node holds, and its own claims last the lease", async () => {
  const held = await onTime.claim(ref("held-by-the-other-node"), "fp");
  expect(held.kind).toBe("claimed");
  // Ten minutes past the other node's lease by this machine's clock, yet the claim still runs.
  expect(await t.gateway.guards.idempotency.claim(ref("held-by-the-other-node"), "fp")).toEqual({ kind: "running" });

  const mine = await t.gateway.guards.idempotency.claim(ref("held-by-this-node"), "fp");
  expect(mine.kind).toBe("claimed");
  if (mine.kind !== "claimed") return;
  expect(Math.abs(mine.since - realNow())).toBeLessThan(1_000);
  expect(await onTime.claim(ref("held-by-this-node"), "fp")).toEqual({ kind: "running" });
});

it("signs webhooks with the time the receiver's clock reads", async () => {
  const secret = await setEndpoint(t, receiver.url);
  const event = await sendTestEvent(t);
  const [request] = await receiver.waitFor(1);
  const verified = await verifyWebhook({
    rawBody: request?.body ?? "",
    header: request?.headers["gateway-signature"],
    secret: secret ?? "",
    now: realNow(),
    toleranceSeconds: 5,
  });
  expect(verified.id).toBe(event.id);
});
