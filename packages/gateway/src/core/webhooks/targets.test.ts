// The endpoint targets the delivery worker keeps (on the store under test): a change made on this node applies to the
// next attempt at once; one made through another node (a second WebhookEndpoints on the same store) once the kept
// entry is older than its maximum age; a grace's end is judged at each lookup against the gateway's clock. An entry
// unused for the idle bound (an endpoint deleted through another node and no longer attempted) leaves.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestGateway, type TestGateway } from "../../../test/harness.ts";
import { FakeClock } from "../../../test/webhooks/fake-clock.ts";
import { endpointCacheIdleMs } from "./cache-bounds.ts";
import { WebhookEndpoints } from "./endpoints.ts";
import { AttemptTargets } from "./targets.ts";

const maxAgeMs = 300;
const start = Date.parse("2026-11-25T10:00:00.000Z");
const account = "targets-test";
const allowAll = { allowPrivate: true, resolve: async () => [{ address: "127.0.0.1", family: 4 as const }] };

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
  await t.gateway.core.accounts.ensure(account);
});
afterAll(async () => t?.close());

function nodes(clock: FakeClock) {
  const { db } = t.gateway.core.store;
  const box = t.gateway.core.secretBox;
  const here = new WebhookEndpoints(db, clock, box, allowAll);
  const elsewhere = new WebhookEndpoints(db, clock, box, allowAll);
  return { here, elsewhere, targets: new AttemptTargets(db, here, maxAgeMs) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the endpoint targets kept for attempts", () => {
  it("follow changes on this node at once and changes through another node within their maximum age", async () => {
    const clock = new FakeClock(start);
    const { here, elsewhere, targets } = nodes(clock);
    const created = await here.set(account, { url: "http://127.0.0.1:9/first", event_types: ["*"] });
    const id = created.endpoint.id;
    const first = created.secret as string;

    expect(targets.fresh([id], clock.now())).toBeUndefined();
    const read = await targets.lookup([id], clock.now());
    expect(read.get(id)).toEqual({ url: "http://127.0.0.1:9/first", secrets: [first] });
    expect(targets.fresh([id], clock.now())?.get(id)).toEqual({ url: "http://127.0.0.1:9/first", secrets: [first] });

    // Through another node: this node's entry stands until it is older than the maximum age, then it is read again.
    const second = (await elsewhere.rotate(account, 0)).secret;
    expect(targets.fresh([id], clock.now())?.get(id)?.secrets).toEqual([first]);
    await sleep(maxAgeMs + 50);
    expect(targets.fresh([id], clock.now())).toBeUndefined();
    expect((await targets.lookup([id], clock.now())).get(id)?.secrets).toEqual([second]);

    // On this node: the next lookup reads the change.
    await here.set(account, { url: "http://127.0.0.1:9/moved", event_types: ["*"] });
    expect(targets.fresh([id], clock.now())).toBeUndefined();
    expect((await targets.lookup([id], clock.now())).get(id)).toEqual({
      url: "http://127.0.0.1:9/moved",
      secrets: [second],
    });

    // A grace: both sign, newest first, until the grace ends on the gateway's clock, kept entry or not.
    const third = (await here.rotate(account, 60)).secret;
    expect((await targets.lookup([id], clock.now())).get(id)?.secrets).toEqual([third, second]);
    clock.advance(60_000);
    expect(targets.fresh([id], clock.now())?.get(id)?.secrets).toEqual([third]);

    // Deleted through another node: no target once the entry is read again.
    await elsewhere.delete(account);
    await sleep(maxAgeMs + 50);
    expect(targets.fresh([id], clock.now())).toBeUndefined();
    expect((await targets.lookup([id], clock.now())).has(id)).toBe(false);
    expect(targets.fresh([id], clock.now())).toBeUndefined();
  });

  it("do not keep what a read found when a change on this node ended while it ran", async () => {
    const clock = new FakeClock(start);
    const { db } = t.gateway.core.store;
    // This node's endpoints, with a change made and committed between the read of the URL and that of the secrets.
    let duringRead: (() => Promise<unknown>) | undefined;
    class ChangedDuringRead extends WebhookEndpoints {
      override async signingSecrets(ids: readonly string[]) {
        const found = await super.signingSecrets(ids);
        await duringRead?.();
        return found;
      }
    }
    const here = new ChangedDuringRead(db, clock, t.gateway.core.secretBox, allowAll);
    const targets = new AttemptTargets(db, here, maxAgeMs);
    const id = (await here.set(account, { url: "http://127.0.0.1:9/before", event_types: ["*"] })).endpoint.id;
    duringRead = () => here.set(account, { url: "http://127.0.0.1:9/after", event_types: ["*"] });
    // The read began before the change: it may answer the old URL, but must not keep it for later attempts.
    expect((await targets.lookup([id], clock.now())).get(id)?.url).toBe("http://127.0.0.1:9/before");
    duringRead = undefined;
    expect(targets.fresh([id], clock.now())).toBeUndefined();
    expect((await targets.lookup([id], clock.now())).get(id)?.url).toBe("http://127.0.0.1:9/after");
    await here.delete(account);
  });

  it("let an endpoint deleted through another node leave once unused for the idle bound, at the next lookup", async () => {
    const clock = new FakeClock(start);
    const { here, elsewhere, targets } = nodes(clock);
    await t.gateway.core.accounts.ensure("targets-idle");
    const deleted = (await here.set(account, { url: "http://127.0.0.1:9/deleted", event_types: ["*"] })).endpoint.id;
    const other = (await here.set("targets-idle", { url: "http://127.0.0.1:9/other", event_types: ["*"] })).endpoint;
    const kept = () => [...(targets as unknown as { kept: Iterable<[string, unknown]> }).kept].map(([id]) => id);
    await targets.lookup([deleted], clock.now());
    await elsewhere.delete(account);
    expect(kept()).toEqual([deleted]);

    const real = performance.now.bind(performance);
    const later = vi.spyOn(performance, "now").mockImplementation(() => real() + endpointCacheIdleMs);
    try {
      await targets.lookup([other.id], clock.now());
    } finally {
      later.mockRestore();
    }
    expect(kept()).toEqual([other.id]);
    await here.delete("targets-idle");
  });
});
