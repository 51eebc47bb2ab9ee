// The event types the gateway emits, `test.event` (send_test_event) included. Endpoints subscribe to these.
export const eventTypes = [
  "reservation.confirmed",
  "reservation.cancelled",
  "waitlist.called",
  "order.updated",
  "payment.approved",
  "payment.declined",
  "ride.updated",
  "connection.created",
  "connection.deleted",
  "connection.needs_reauth",
  "price_watch.triggered",
  "test.event",
] as const;

export type EventType = (typeof eventTypes)[number];

export const isEventType = (value: string): value is EventType => (eventTypes as readonly string[]).includes(value);

/** Whether an endpoint's subscription (a list of types, or ["*"]) covers the type. */
export function subscribes(eventTypesJson: string, type: string): boolean {
  const subscribed = JSON.parse(eventTypesJson) as string[];
  return subscribed.includes("*") || subscribed.includes(type);
}
