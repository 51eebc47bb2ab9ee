// The signing secrets delivery reads (on the store under test), kept opened so that an attempt does not decrypt them
// again: only those still stored are kept, so that a secret rotated out (a leaked one) leaves memory at the next read;
// at the bound, the endpoints least recently read make room, not those in use.
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../../test/harness.ts";
import { holdFirstResult } from "../../../test/held-result.ts";
import { FakeClock } from "../../../test/webhooks/fake-clock.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import { endpointCacheEntries } from "./cache-bounds.ts";
import { EndpointSecrets } from "./endpoint-secrets.ts";
import { WebhookEndpoints } from "./endpoints.ts";

const account = "secrets-test";
const allowAll = { allowPrivate: true, resolve: async () => [{ address: "127.0.0.1", family: 4 as const }] };

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ env: { GATEWAY_NO_WEBHOOK_WORKER: "1" } });
  await t.gateway.core.accounts.ensure(account);
});
afterAll(async () => t?.close());

it("keeps opened only the secrets still stored: a rotated-out or deleted endpoint's secret goes at the next read", async () => {
  const clock = new FakeClock(Date.parse("2026-11-25T10:00:00.000Z"));
  const { db } = t.gateway.core.store;
  const endpoints = new WebhookEndpoints(db, clock, t.gateway.core.secretBox, allowAll);
  const secrets = new EndpointSecrets(db, t.gateway.core.secretBox);
  const id = (await endpoints.set(account, { url: "http://127.0.0.1:9/hooks", event_types: ["*"] })).endpoint.id;
  const read = async () => (await secrets.signingSecrets([id])).get(id)?.map((signing) => signing.secret);

  const first = (await read())![0]!;
  expect(secrets.openedCount).toBe(1);
  // Rotated without a grace: only the new one signs, and only it stays opened.
  const second = (await endpoints.rotate(account, 0)).secret;
  expect(await read()).toEqual([second]);
  expect(secrets.openedCount).toBe(1);
  // With a grace both sign; the next rotation ends the older one's grace at once, and it leaves memory too.
  const third = (await endpoints.rotate(account, 60)).secret;
  expect(await read()).toEqual([third, second]);
  expect(secrets.openedCount).toBe(2);
  const fourth = (await endpoints.rotate(account, 60)).secret;
  expect(await read()).toEqual([fourth, third]);
  expect(secrets.openedCount).toBe(2);
  expect([first, second, third]).not.toContain(fourth);
  // The endpoint deleted: nothing of it is kept.
  await endpoints.delete(account);
  expect(await read()).toBeUndefined();
  expect(secrets.openedCount).toBe(0);
});

it("keeps nothing opened of an endpoint deleted or rotated through this node, without another read", async () => {
  const clock = new FakeClock(Date.parse("2026-11-25T10:00:00.000Z"));
  const { db } = t.gateway.core.store;
  const endpoints = new WebhookEndpoints(db, clock, t.gateway.core.secretBox, allowAll);
  const opened = () => (endpoints as unknown as { secrets: EndpointSecrets }).secrets.openedCount;
  const id = (await endpoints.set(account, { url: "http://127.0.0.1:9/hooks", event_types: ["*"] })).endpoint.id;

  await endpoints.signingSecrets([id]);
  expect(opened()).toBe(1);
  await endpoints.rotate(account, 60);
  expect(opened()).toBe(0);
  expect((await endpoints.signingSecrets([id])).get(id)).toHaveLength(2);
  expect(opened()).toBe(2);
  // Deleting it fails its pending deliveries: delivery never reads its secrets again.
  await endpoints.delete(account);
  expect(opened()).toBe(0);
});

it("keeps nothing a read found when the endpoint was changed on this node while the read ran", async () => {
  const clock = new FakeClock(Date.parse("2026-11-25T10:00:00.000Z"));
  const { db } = t.gateway.core.store;
  // Holds the answer of the secrets' first read until the test lets it go.
  const hold = holdFirstResult();
  const endpoints = new WebhookEndpoints(db, clock, t.gateway.core.secretBox, allowAll);
  const secrets = new EndpointSecrets(db.withPlugin(hold.plugin), t.gateway.core.secretBox);
  const id = (await endpoints.set(account, { url: "http://127.0.0.1:9/hooks", event_types: ["*"] })).endpoint.id;

  const read = secrets.signingSecrets([id]);
  await hold.held;
  secrets.forget(id);
  hold.release();
  expect((await read).get(id)).toHaveLength(1);
  expect(secrets.openedCount).toBe(0);
  // The next read keeps what it finds.
  await secrets.signingSecrets([id]);
  expect(secrets.openedCount).toBe(1);
  await endpoints.delete(account);
});

it("keeps a hot endpoint's secret opened while more other endpoints are read than it keeps", async () => {
  const { db } = t.gateway.core.store;
  const box = t.gateway.core.secretBox;
  const now = Date.parse("2026-11-25T10:00:00.000Z");
  // One endpoint delivered to all along, and as many others, each read once, as the endpoints kept.
  const ids = Array.from({ length: endpointCacheEntries + 1 }, (_, i) => `we_bound${String(i).padStart(5, "0")}`);
  const hotSealed = box.seal("whsec_hot");
  const otherSealed = box.seal("whsec_other");
  for (let i = 0; i < ids.length; i += 500) {
    const batch = ids.slice(i, i + 500);
    await db
      .insertInto("accounts")
      .values(batch.map((id) => ({ id: `acct_${id}`, name: id, created_at: now })))
      .execute();
    await db
      .insertInto("webhook_endpoints")
      .values(
        batch.map((id) => ({
          id,
          account_id: `acct_${id}`,
          url: "http://127.0.0.1:9/hooks",
          event_types: '["*"]',
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
    await db
      .insertInto("webhook_secrets")
      .values(
        batch.map((id, j) => ({
          id: `whs_${id}`,
          endpoint_id: id,
          secret_sealed: i + j === 0 ? hotSealed : otherSealed,
          created_at: now,
          expires_at: null,
        })),
      )
      .execute();
  }
  let hotOpened = 0;
  const counting = Object.create(box, {
    open: {
      value: (sealed: string) => {
        if (sealed === hotSealed) hotOpened++;
        return box.open(sealed);
      },
    },
  }) as SecretBox;
  const secrets = new EndpointSecrets(db, counting);
  const [hot, ...others] = ids as [string, ...string[]];

  await secrets.signingSecrets([hot]);
  for (let i = 0; i < others.length; i += 500) {
    await secrets.signingSecrets(others.slice(i, i + 500));
    expect((await secrets.signingSecrets([hot])).get(hot)?.[0]?.secret).toBe("whsec_hot");
  }
  // Opened once: it stayed through every read of the others, the least recently read of which made room.
  expect(hotOpened).toBe(1);
  expect(secrets.openedCount).toBe(endpointCacheEntries);
  await db.deleteFrom("webhook_endpoints").where("id", "like", "we_bound%").execute();
  await db.deleteFrom("accounts").where("id", "like", "acct_we_bound%").execute();
}, 120_000);
