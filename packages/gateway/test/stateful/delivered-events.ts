// The webhook deliveries a stateful provider's test waits for, checked as a receiver must check them: exact headers,
// the v2 signature verified with the SDK, the event envelope; and the events about one resource, in arrival order.
import { expect } from "vitest";
import { verifyWebhook } from "../../../sdk/src/index.ts";
import { eventually } from "../webhooks/fake-clock.ts";
import type { Receiver } from "../webhooks/receiver.ts";
import type { ProviderSetup } from "./provider-setup.ts";

export interface DeliveredEvent {
  id: string;
  type: string;
  created_at: string;
  data: { object: any };
}

/** Checks a delivery as a receiver must: exact headers, the v2 signature verified with the SDK, the event envelope. */
export async function verifiedEvent(
  s: ProviderSetup,
  received: Receiver["received"][number],
  type: string,
): Promise<DeliveredEvent> {
  const event = (await verifyWebhook({
    rawBody: received.body,
    header: received.headers["gateway-signature"],
    secret: s.webhookSecret,
  })) as any;
  expect(received.headers["content-type"]).toBe("application/json");
  expect(received.headers["gateway-event-id"]).toBe(event.id);
  expect(Object.keys(event).sort()).toEqual(["created_at", "data", "id", "type"]);
  expect(event).toMatchObject({ id: expect.stringMatching(/^evt_[0-9A-Za-z]{22}$/), type });
  expect(new Date(event.created_at).toISOString()).toBe(event.created_at);
  expect(Object.keys(event.data)).toEqual(["object"]);
  return event as DeliveredEvent;
}

/**
 * Waits for the delivery of an event of `type` about resource `id` (and, when given, whose object satisfies
 * `matches`), and checks it with `verifiedEvent`. Answers the verified event.
 */
export async function delivered(
  s: ProviderSetup,
  type: string,
  id: string,
  matches: (object: any) => boolean = () => true,
): Promise<DeliveredEvent> {
  const received = await eventually(() =>
    s.receiver.received.find((r) => {
      const event = JSON.parse(r.body);
      return event.type === type && event.data.object.id === id && matches(event.data.object);
    }),
  );
  return verifiedEvent(s, received, type);
}

/** Every delivered event about resource `id`, in arrival order, as `type` names. */
export const deliveredTypes = (s: ProviderSetup, id: string): string[] => receivedAbout(s, id).map((e) => e.type);

/** Every delivered event about resource `id`, unverified, in arrival order. */
export const receivedAbout = (s: ProviderSetup, id: string): DeliveredEvent[] =>
  s.receiver.received.map((r) => JSON.parse(r.body)).filter((e) => e.data?.object?.id === id);
