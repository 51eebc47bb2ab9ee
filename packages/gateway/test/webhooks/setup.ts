// Shared steps of the webhook tests: a gateway with a fast worker and a fake clock, an endpoint pointing at a real
// receiver, and helpers that read deliveries through the platform operations.
import { createHmac } from "node:crypto";
import { expect } from "vitest";
import type { WebhookSender } from "../../src/core/webhooks/sender.ts";
import { WebhookWorker, type WorkerDeps } from "../../src/core/webhooks/worker.ts";
import { startTestGateway, type TestGateway, type TestGatewayOptions } from "../harness.ts";
import { eventually, FakeClock } from "./fake-clock.ts";
import { type Answer, type Received, type Receiver, startReceiver } from "./receiver.ts";

export const hmac = (secret: string, content: string) => createHmac("sha256", secret).update(content).digest("hex");
export const start = Date.parse("2026-11-21T10:00:00.000Z");

export const fastWorker = {
  GATEWAY_WEBHOOK_ALLOW_PRIVATE: "1",
  GATEWAY_WEBHOOK_POLL_INTERVAL_MS: "20",
  // Generous: a loaded machine must not turn a receiver's answer into a timeout.
  GATEWAY_WEBHOOK_TIMEOUT_MS: "3000",
  // The tests poll the event API while they wait; the per-key rate limit is not what they are about.
  GATEWAY_RATE_LIMIT_PER_MINUTE: "1000000",
  GATEWAY_RATE_LIMIT_BURST: "100000",
};

/**
 * A delivery worker of its own on a test gateway's store (started with GATEWAY_NO_WEBHOOK_WORKER), that never sends:
 * for tests of what the worker does with the store (its claims, its purges). `deps` replaces the gateway's parts.
 */
export function storeOnlyWorker(gateway: TestGateway, deps: Partial<WorkerDeps> = {}): WebhookWorker {
  const { core } = gateway.gateway;
  return new WebhookWorker(
    {
      db: core.store.db,
      kind: core.store.kind,
      clock: core.clock,
      events: core.events,
      endpoints: core.webhooks.endpoints,
      sender: {} as WebhookSender,
      log: { error: () => {}, info: () => {} },
      ...deps,
    },
    {
      pollIntervalMs: 60_000,
      leaseMs: 60_000,
      timeoutMs: 10_000,
      concurrency: 2,
      endpointConcurrency: 1,
      userAgent: "test",
    },
  );
}

export interface DeliveryView {
  id: string;
  status: string;
  attempt_count: number;
  next_attempt_at: string | null;
  deadline_at: string;
  attempts: {
    attempt: number;
    attempted_at: string;
    status_code: number | null;
    error: string | null;
    response_body: string | null;
    latency_ms: number;
  }[];
}

export interface WebhookSetup {
  gateway: TestGateway;
  receiver: Receiver;
  clock: FakeClock;
  secret: string;
}

const open: { close(): Promise<void> }[] = [];

/** Closes what `setupWebhooks` started; call it in afterEach. */
export async function closeAll(): Promise<void> {
  for (const item of open.splice(0).reverse()) await item.close();
}

export async function setupWebhooks(
  options: {
    answer?: (request: Received) => Answer;
    clock?: FakeClock;
    env?: Record<string, string>;
    gateway?: Omit<TestGatewayOptions, "clock" | "env">;
    eventTypes?: string[];
  } = {},
): Promise<WebhookSetup> {
  const clock = options.clock ?? new FakeClock(start);
  const receiver = await startReceiver(options.answer);
  open.push(receiver);
  const gateway = await startTestGateway({ ...options.gateway, clock, env: { ...fastWorker, ...options.env } });
  open.push(gateway);
  const secret = await setEndpoint(gateway, receiver.url, options.eventTypes ?? ["*"]);
  return { gateway, receiver, clock, secret: secret ?? "" };
}

export async function setEndpoint(gateway: TestGateway, url: string, eventTypes: string[] = ["*"]) {
  const response = await gateway.call("platform", "set_webhook_endpoint", { url, event_types: eventTypes });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { secret: string | null } }).data.secret;
}

export async function sendTestEvent(gateway: TestGateway): Promise<{ id: string; type: string }> {
  const response = await gateway.call("platform", "send_test_event");
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { event: { id: string; type: string } } }).data.event;
}

export async function deliveriesOf(gateway: TestGateway, eventId: string): Promise<DeliveryView[]> {
  const response = await gateway.call("platform", "list_event_deliveries", { event_id: eventId });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { deliveries: DeliveryView[] } }).data.deliveries;
}

/** Waits until the event's first delivery has `count` attempts recorded. */
export async function attemptsRecorded(gateway: TestGateway, eventId: string, count: number): Promise<DeliveryView> {
  return eventually(async () => {
    const delivery = (await deliveriesOf(gateway, eventId))[0];
    return delivery && delivery.attempts.length >= count ? delivery : undefined;
  });
}

/** Moves the clock to the next scheduled attempt and waits until it is recorded. */
export async function nextAttempt(setup: WebhookSetup, eventId: string): Promise<DeliveryView> {
  const before = (await deliveriesOf(setup.gateway, eventId))[0];
  if (!before?.next_attempt_at) throw new Error(`no next attempt scheduled (status ${before?.status})`);
  if (before.attempts.length === 0) throw new Error("wait for the first attempt to be recorded first");
  setup.clock.set(Math.max(setup.clock.now(), Date.parse(before.next_attempt_at)));
  return attemptsRecorded(setup.gateway, eventId, before.attempts.length + 1);
}
