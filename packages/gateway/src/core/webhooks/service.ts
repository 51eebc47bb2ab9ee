// Assembles events and webhooks for the composition root: the event log, endpoints, deliveries, the sender with its
// address guard, and the delivery worker (woken whenever this node records an event or queues a redelivery).

import type { Store } from "../../store/database.ts";
import type { Clock } from "../clock.ts";
import type { MasterKeyWatch } from "../crypto/master-key-watch.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import { Events } from "../events/events.ts";
import { Deliveries } from "./deliveries.ts";
import { WebhookEndpoints } from "./endpoints.ts";
import { type HostResolver, systemResolver } from "./resolver.ts";
import { WebhookSender } from "./sender.ts";
import { WebhookWorker } from "./worker.ts";

export interface WebhookSettings {
  allowPrivate: boolean;
  timeoutMs: number;
  pollIntervalMs: number;
  leaseMs: number;
  concurrency: number;
  /** Attempts in flight to any one endpoint (at most `concurrency`). */
  endpointConcurrency: number;
  userAgent: string;
  /** Replaces DNS (tests simulate rebinding with it). */
  resolve?: HostResolver | undefined;
}

export interface WebhookServices {
  events: Events;
  endpoints: WebhookEndpoints;
  deliveries: Deliveries;
  worker: WebhookWorker;
  close(): Promise<void>;
}

export function createWebhookServices(input: {
  store: Store;
  clock: Clock;
  secretBox: SecretBox;
  /** Whether this node's master keys still open the store's secrets (the worker stands by while they do not). */
  masterKeys?: MasterKeyWatch;
  settings: WebhookSettings;
  log: { error(object: object, message: string): void; info(object: object, message: string): void };
  /** Told of every attempt made (the metrics count them). */
  onAttempt?: (ok: boolean) => void;
}): WebhookServices {
  const { store, clock, settings } = input;
  const resolve = settings.resolve ?? systemResolver;
  const events = new Events(store.db, clock);
  const endpoints = new WebhookEndpoints(store.db, clock, input.secretBox, {
    allowPrivate: settings.allowPrivate,
    resolve,
  });
  const deliveries = new Deliveries(store.db, clock, events);
  const sender = new WebhookSender({
    timeoutMs: settings.timeoutMs,
    allowPrivate: settings.allowPrivate,
    resolve,
    connections: settings.concurrency,
  });
  const worker = new WebhookWorker(
    {
      db: store.db,
      kind: store.kind,
      clock,
      events,
      endpoints,
      sender,
      log: input.log,
      onAttempt: input.onAttempt,
      masterKeys: input.masterKeys,
    },
    settings,
  );
  events.onRecorded(() => worker.wake());
  deliveries.onCreated(() => worker.wake());
  return {
    events,
    endpoints,
    deliveries,
    worker,
    async close() {
      await worker.stop();
      await sender.close();
    },
  };
}
