// What a node keeps of webhook endpoints for delivery leaves its memory once unused for a while: an endpoint deleted
// through another node (this node is not told) does not stay among its opened secrets until the cache fills.
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { endpointCacheIdleMs } from "../../src/core/webhooks/cache-bounds.ts";
import type { EndpointSecrets } from "../../src/core/webhooks/endpoint-secrets.ts";
import { startTestGateway, type TestGateway } from "../harness.ts";
import { type Receiver, startReceiver } from "./receiver.ts";
import { fastWorker } from "./setup.ts";

let receiver: Receiver;
let writer: TestGateway;
let deliverer: TestGateway;
beforeAll(async () => {
  receiver = await startReceiver();
  // Two nodes on one store: the first changes endpoints, the second alone delivers.
  writer = await startTestGateway({ env: { ...fastWorker, GATEWAY_NO_WEBHOOK_WORKER: "1" } });
  deliverer = await startTestGateway({ env: fastWorker, shareStoreWith: writer });
});
afterAll(async () => {
  await deliverer?.close();
  await writer?.close();
  await receiver?.close();
});

it("drops an endpoint deleted through another node from the delivering node's opened secrets once idle", async () => {
  const { core } = writer.gateway;
  const endpointOf = async (account: string) => {
    await core.accounts.ensure(account);
    const set = await core.webhooks.endpoints.set(account, { url: `${receiver.url}/${account}`, event_types: ["*"] });
    return set.endpoint.id;
  };
  const deleted = await endpointOf("caches-deleted");
  const kept = await endpointOf("caches-kept");
  const deliver = async (account: string, count: number) => {
    await core.events.record(core.store.db, { accountId: account, type: "order.updated", object: { id: account } });
    await receiver.waitFor(count, 10_000);
  };
  const secrets = (deliverer.gateway.core.webhooks.endpoints as unknown as { secrets: EndpointSecrets }).secrets;
  const opened = () => [...(secrets as unknown as { opened: Iterable<[string, unknown]> }).opened].map(([id]) => id);

  await deliver("caches-deleted", 1);
  expect(opened()).toEqual([deleted]);
  // Through the other node: the delivering node is not told, and delivers nothing more to that endpoint.
  await core.webhooks.endpoints.delete("caches-deleted");

  // Past the idle bound on the monotonic clock, the next delivery (to another endpoint) leaves only that one's.
  const real = performance.now.bind(performance);
  const later = vi.spyOn(performance, "now").mockImplementation(() => real() + endpointCacheIdleMs + 1_000);
  try {
    await deliver("caches-kept", 2);
    await vi.waitFor(() => expect(opened()).toEqual([kept]));
  } finally {
    later.mockRestore();
  }
  expect(receiver.received.map((request) => request.path.split("/").pop())).toEqual(["caches-deleted", "caches-kept"]);
});
