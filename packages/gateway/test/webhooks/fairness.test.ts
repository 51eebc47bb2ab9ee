// One account's endpoint that hangs, with a backlog larger than the node's slots, holds at most its cap of them:
// another account's event is claimed and delivered at once instead of waiting behind that backlog.
import { afterEach, describe, expect, it } from "vitest";
import { claimsPerEndpoint } from "../../src/core/webhooks/claim.ts";
import { eventually } from "./fake-clock.ts";
import { type Receiver, startReceiver } from "./receiver.ts";
import { closeAll, sendTestEvent, setupWebhooks } from "./setup.ts";

afterEach(closeAll);

describe("delivery slots shared by endpoints", () => {
  it("a hanging endpoint holds at most its cap; another endpoint's event goes out at once", async () => {
    const concurrency = claimsPerEndpoint + 4;
    const setup = await setupWebhooks({
      env: { GATEWAY_WEBHOOK_CONCURRENCY: String(concurrency), GATEWAY_WEBHOOK_TIMEOUT_MS: "20000" },
    });
    const hanging: Receiver = await startReceiver(() => "hang");
    try {
      const { core } = setup.gateway.gateway;
      await core.accounts.ensure("noisy");
      await core.webhooks.endpoints.set("noisy", { url: hanging.url, event_types: ["*"] });
      const backlog = 3 * concurrency;
      for (let index = 0; index < backlog; index++) {
        await core.events.record(core.store.db, { accountId: "noisy", type: "order.updated", object: { id: index } });
      }
      await hanging.waitFor(claimsPerEndpoint);
      const sent = Date.now();
      const event = await sendTestEvent(setup.gateway);
      const [request] = await setup.receiver.waitFor(1, 5_000);
      expect(request?.headers["gateway-event-id"]).toBe(event.id);
      expect(Date.now() - sent).toBeLessThan(5_000);
      // The hanging endpoint never held more than its cap, although free slots were left.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(hanging.received).toHaveLength(claimsPerEndpoint);
      const leased = await eventually(async () => {
        const rows = await core.store.db
          .selectFrom("webhook_deliveries")
          .select("id")
          .where("account_id", "=", "noisy")
          .where("lease_until", "is not", null)
          .execute();
        return rows.length;
      });
      expect(leased).toBe(claimsPerEndpoint);
    } finally {
      await hanging.close();
    }
  });

  it("an endpoint at its cap gets its next deliveries as its attempts finish, not at the next poll", async () => {
    // A poll far beyond the test's time: only finished attempts can start the next ones.
    const setup = await setupWebhooks({
      answer: () => "hang",
      env: { GATEWAY_WEBHOOK_POLL_INTERVAL_MS: "600000", GATEWAY_WEBHOOK_TIMEOUT_MS: "20000" },
    });
    const { core } = setup.gateway.gateway;
    for (let index = 0; index < 3 * claimsPerEndpoint; index++) {
      await core.events.record(core.store.db, { accountId: "default", type: "order.updated", object: { id: index } });
    }
    for (let round = 1; round <= 3; round++) {
      await setup.receiver.waitFor(round * claimsPerEndpoint, 20_000);
      // Past the short polling that follows a recorded event: what comes next is started by the answers alone.
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(setup.receiver.received).toHaveLength(round * claimsPerEndpoint);
      setup.receiver.answerHanging(200);
    }
  });
});
