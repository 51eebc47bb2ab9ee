// Each endpoint's share of a node's delivery slots, over real HTTP: a receiver that hangs, with a backlog several times
// the node's slots, delays only its own deliveries (another account's endpoint gets its events within the hanging one's
// first round, told by what has happened, not by the time taken) and still gets every event, its share at a time; and
// nodes sharing a store end every delivery.
import { afterEach, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../harness.ts";
import { eventually } from "./fake-clock.ts";
import { type Receiver, startReceiver } from "./receiver.ts";
import { closeAll, fastWorker, setupWebhooks } from "./setup.ts";

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
  await closeAll();
});

const timeoutMs = 2_000;
const share = {
  GATEWAY_WEBHOOK_CONCURRENCY: "4",
  GATEWAY_WEBHOOK_ENDPOINT_CONCURRENCY: "2",
  GATEWAY_WEBHOOK_TIMEOUT_MS: String(timeoutMs),
};

/** An endpoint of another account ("other"), pointing at a receiver of its own that answers 200 at once. */
async function otherAccountsEndpoint(gateway: TestGateway): Promise<Receiver> {
  const receiver = await startReceiver();
  opened.push(receiver);
  const { core } = gateway.gateway;
  await core.accounts.ensure("other");
  await core.webhooks.endpoints.set("other", { url: receiver.url, event_types: ["*"] });
  return receiver;
}

async function recordEvents(gateway: TestGateway, accountId: string, count: number): Promise<string[]> {
  const { core } = gateway.gateway;
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const event = await core.events.record(core.store.db, { accountId, type: "order.updated", object: { index } });
    ids.push(event.id);
  }
  return ids;
}

/** Attempts of the account's deliveries that have ended (answered or timed out) and are in the attempt log. */
async function attemptsEnded(gateway: TestGateway, accountId: string): Promise<number> {
  const db = gateway.gateway.core.store.db;
  const rows = await db
    .selectFrom("webhook_attempts")
    .innerJoin("webhook_deliveries", "webhook_deliveries.id", "webhook_attempts.delivery_id")
    .select("webhook_attempts.delivery_id")
    .where("webhook_deliveries.account_id", "=", accountId)
    .execute();
  return rows.length;
}

const eventIds = (receiver: Receiver) => receiver.received.map((request) => request.headers["gateway-event-id"]);

describe("an endpoint's share of the delivery slots", () => {
  it("delivers another account's events at once while a receiver that hangs drains its backlog", async () => {
    const hanging = await setupWebhooks({ answer: () => "hang", env: share });
    const { gateway } = hanging;
    const other = await otherAccountsEndpoint(gateway);
    // Three times the node's 4 slots, to an endpoint that may take 2 of them.
    const backlog = await recordEvents(gateway, "default", 12);
    await hanging.receiver.waitFor(2);

    const prompt = await recordEvents(gateway, "other", 4);
    await other.waitFor(4, 4 * timeoutMs);
    expect(eventIds(other).sort()).toEqual([...prompt].sort());
    expect(other.received.map((request) => request.headers["gateway-delivery-attempt"])).toEqual(["1", "1", "1", "1"]);
    // They came within the hanging endpoint's first round: it has its 2 slots and no more, and none of its attempts has
    // ended yet. Without a share, the backlog's attempts hold every slot, and these wait for a timeout per round.
    expect(hanging.receiver.received).toHaveLength(2);
    expect(await attemptsEnded(gateway, "default")).toBe(0);

    const db = gateway.gateway.core.store.db;
    await eventually(async () => {
      const rows = await db
        .selectFrom("webhook_deliveries")
        .select("status")
        .where("account_id", "=", "other")
        .execute();
      return rows.length === 4 && rows.every((row) => row.status === "succeeded") ? true : undefined;
    });

    // Every event of the backlog reaches its receiver, once: 2 at a time, a timeout per round.
    await hanging.receiver.waitFor(12, 8 * timeoutMs);
    expect(eventIds(hanging.receiver).sort()).toEqual([...backlog].sort());
  }, 60_000);

  it("delivers another account's events at once while three of four shares hang, a slot still free", async () => {
    // 4 slots, 1 per endpoint: three receivers that hang take 3 slots and hold 2 claims each, 6 of the node's 8.
    const env = { ...share, GATEWAY_WEBHOOK_ENDPOINT_CONCURRENCY: "1" };
    const hanging = await setupWebhooks({ answer: () => "hang", env });
    const { gateway } = hanging;
    const { core } = gateway.gateway;
    const receivers = [hanging.receiver];
    for (const accountId of ["second", "third"]) {
      const receiver = await startReceiver(() => "hang");
      opened.push(receiver);
      receivers.push(receiver);
      await core.accounts.ensure(accountId);
      await core.webhooks.endpoints.set(accountId, { url: receiver.url, event_types: ["*"] });
    }
    for (const accountId of ["default", "second", "third"]) await recordEvents(gateway, accountId, 4);
    for (const receiver of receivers) await receiver.waitFor(1);
    const other = await otherAccountsEndpoint(gateway);

    const prompt = await recordEvents(gateway, "other", 2);
    await other.waitFor(2, 4 * timeoutMs);
    expect(eventIds(other).sort()).toEqual([...prompt].sort());
    // The fourth slot took them while the three hanging receivers' first attempts were still under way; waiting until
    // the claims held drop would have left it idle for a timeout.
    for (const receiver of receivers) expect(receiver.received).toHaveLength(1);
    for (const accountId of ["default", "second", "third"]) expect(await attemptsEnded(gateway, accountId)).toBe(0);
    for (const receiver of receivers) receiver.answerHanging(200);
  }, 60_000);

  it("keeps the lease of a delivery that waited a round for its slot while its attempt is under way", async () => {
    // One slot: the second delivery is claimed with the first and starts once the first has timed out.
    const env = { ...share, GATEWAY_WEBHOOK_CONCURRENCY: "1", GATEWAY_WEBHOOK_ENDPOINT_CONCURRENCY: "1" };
    const timeout = { GATEWAY_WEBHOOK_TIMEOUT_MS: "1000", GATEWAY_WEBHOOK_LEASE_MS: "1500" };
    const hanging = await setupWebhooks({ answer: () => "hang", env: { ...env, ...timeout } });
    const { gateway, clock, receiver } = hanging;
    const [, waited] = await recordEvents(gateway, "default", 2);
    await receiver.waitFor(2, 5_000);
    expect(receiver.received[1]?.headers["gateway-event-id"]).toBe(waited);
    // The round it waited (a timeout, here on the test's clock) and its attempt's own timeout outlast a lease counted
    // from the claim: another claim would take the delivery while it is sent, and its outcome would not count.
    clock.advance(1_600);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const db = gateway.gateway.core.store.db;
    const row = await db
      .selectFrom("webhook_deliveries")
      .select(["attempt_count", "lease_until"])
      .where("event_id", "=", waited as string)
      .executeTakeFirstOrThrow();
    expect(row.attempt_count).toBe(1);
    expect(receiver.received).toHaveLength(2);
    receiver.answerHanging(200);
  }, 30_000);

  it("ends every delivery with two nodes sharing the store, each claiming within its share", async () => {
    const first = await setupWebhooks({ answer: () => "hang", env: share });
    // Answers every 20 ms: attempts to this endpoint stay under way long enough to fill its share on each node.
    const answering = setInterval(() => first.receiver.answerHanging(200), 20);
    opened.push({ close: async () => clearInterval(answering) });
    const second = await startTestGateway({
      shareStoreWith: first.gateway,
      clock: first.clock,
      env: { ...fastWorker, ...share },
    });
    opened.push(second);
    const other = await otherAccountsEndpoint(first.gateway);
    const backlog = await recordEvents(first.gateway, "default", 100);
    const prompt = await recordEvents(second, "other", 20);

    const db = first.gateway.gateway.core.store.db;
    await eventually(async () => {
      const rows = await db
        .selectFrom("webhook_deliveries")
        .select((eb) => ["status", eb.fn.countAll<number>().as("count")])
        .groupBy("status")
        .execute();
      return rows.length === 1 && rows[0]?.status === "succeeded" && Number(rows[0].count) === 120 ? true : undefined;
    }, 30_000);
    expect(new Set(eventIds(first.receiver))).toEqual(new Set(backlog));
    expect(new Set(eventIds(other))).toEqual(new Set(prompt));
  }, 60_000);
});
