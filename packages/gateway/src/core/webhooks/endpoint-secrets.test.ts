// The signing secrets delivery reads (on the store under test), kept opened so that an attempt does not decrypt them
// again: only those still stored are kept, so that a secret rotated out (a leaked one) leaves memory at the next read.
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../../test/harness.ts";
import { holdFirstResult } from "../../../test/held-result.ts";
import { FakeClock } from "../../../test/webhooks/fake-clock.ts";
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
