// A delivery claimed while every slot is busy waits for one; the endpoint's URL and secrets are read when its attempt
// starts, so a change made meanwhile (a new URL, a deletion, a rotation without grace) applies to it.
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "./fake-clock.ts";
import { startReceiver } from "./receiver.ts";
import { closeAll, deliveriesOf, hmac, sendTestEvent, setupWebhooks, type WebhookSetup } from "./setup.ts";

afterEach(closeAll);

/** One slot: the first event's attempt hangs at the receiver while the second one is claimed and waits. */
async function secondEventQueued(): Promise<{ setup: WebhookSetup; first: string; second: string }> {
  let requests = 0;
  const setup = await setupWebhooks({
    answer: () => (++requests === 1 ? "hang" : { status: 200 }),
    env: { GATEWAY_WEBHOOK_CONCURRENCY: "1", GATEWAY_WEBHOOK_TIMEOUT_MS: "20000" },
  });
  const first = (await sendTestEvent(setup.gateway)).id;
  await setup.receiver.waitFor(1);
  const second = (await sendTestEvent(setup.gateway)).id;
  const { db } = setup.gateway.gateway.core.store;
  await eventually(async () => {
    const row = await db
      .selectFrom("webhook_deliveries")
      .select("lease_until")
      .where("event_id", "=", second)
      .executeTakeFirst();
    return row?.lease_until ? true : undefined;
  });
  return { setup, first, second };
}

describe("an endpoint changed while a claimed delivery waits for a slot", () => {
  it("a new URL: the waiting delivery goes to the new URL only", async () => {
    const { setup, second } = await secondEventQueued();
    const moved = await startReceiver();
    try {
      const response = await setup.gateway.call("platform", "set_webhook_endpoint", {
        url: moved.url,
        event_types: ["*"],
      });
      expect(response.status).toBe(200);
      setup.receiver.answerHanging(200);
      const [request] = await moved.waitFor(1);
      expect(request?.headers).toMatchObject({ "gateway-event-id": second, "gateway-delivery-attempt": "1" });
      const delivery = await eventually(async () => {
        const found = (await deliveriesOf(setup.gateway, second))[0];
        return found?.status === "succeeded" ? found : undefined;
      });
      expect(delivery.attempts).toEqual([expect.objectContaining({ attempt: 1, url: moved.url, status_code: 200 })]);
      expect(setup.receiver.received).toHaveLength(1);
    } finally {
      await moved.close();
    }
  });

  it("a deletion: no attempt, the delivery ends failed; the attempt under way finishes and its 2xx counts", async () => {
    const { setup, first, second } = await secondEventQueued();
    expect((await setup.gateway.call("platform", "delete_webhook_endpoint")).status).toBe(200);
    setup.receiver.answerHanging(200);
    // The first attempt, already under way, finishes; the slot it frees goes to the waiting delivery.
    await eventually(async () => ((await deliveriesOf(setup.gateway, first))[0]?.attempts.length ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(setup.receiver.received.map((r) => r.headers["gateway-event-id"])).toEqual([first]);
    expect(await deliveriesOf(setup.gateway, first)).toEqual([
      expect.objectContaining({
        status: "succeeded",
        attempt_count: 1,
        attempts: [expect.objectContaining({ attempt: 1, status_code: 200, error: null })],
      }),
    ]);
    expect(await deliveriesOf(setup.gateway, second)).toEqual([
      expect.objectContaining({ status: "failed", attempt_count: 0, attempts: [] }),
    ]);
  });

  it("a rotation without grace: the waiting delivery is signed with the new secret only", async () => {
    const { setup, second } = await secondEventQueued();
    const rotated = await setup.gateway.call("platform", "rotate_webhook_secret", { grace_seconds: 0 });
    const { secret } = ((await rotated.json()) as { data: { secret: string } }).data;
    setup.receiver.answerHanging(200);
    const request = (await setup.receiver.waitFor(2))[1];
    expect(request?.headers["gateway-event-id"]).toBe(second);
    const t = Math.floor(setup.clock.now() / 1000);
    expect(request?.headers["gateway-signature"]).toBe(`t=${t},v2=${hmac(secret, `${t}.${request?.body}`)}`);
  });
});

describe("deletions of the endpoint at the same time", () => {
  it("delete it once: the others answer 404, as they would after it", async () => {
    const setup = await setupWebhooks();
    const statuses = await Promise.all(
      Array.from({ length: 6 }, async () => (await setup.gateway.call("platform", "delete_webhook_endpoint")).status),
    );
    expect(statuses.toSorted()).toEqual([200, 404, 404, 404, 404, 404]);
  });
});
