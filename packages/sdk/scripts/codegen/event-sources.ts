// Which operation returns the resource that each webhook event carries: an event's `data.object` is exactly the
// resource as the API returns it, so its type is that operation's output type once the operation exists.

export interface EventSource {
  provider: string;
  operation: string;
  /** The output's property that holds the resource, when the output carries more than the resource. */
  property?: string;
}

export const eventSources: Readonly<Record<string, EventSource>> = {
  "reservation.confirmed": { provider: "dining", operation: "get_reservation" },
  "reservation.cancelled": { provider: "dining", operation: "get_reservation" },
  "waitlist.called": { provider: "dining", operation: "get_waitlist_entry" },
  "order.updated": { provider: "delivery", operation: "get_order" },
  "payment.approved": { provider: "payments", operation: "get_payment" },
  "payment.declined": { provider: "payments", operation: "get_payment" },
  "ride.updated": { provider: "rides", operation: "get_ride" },
  "connection.created": { provider: "platform", operation: "get_connection" },
  "connection.deleted": { provider: "platform", operation: "get_connection" },
  "connection.needs_reauth": { provider: "platform", operation: "get_connection" },
  // No get_price_watch: watch_price answers the same PriceWatch the event carries.
  "price_watch.triggered": { provider: "shopping", operation: "watch_price", property: "watch" },
};

/**
 * The property of a get_… output that holds the resource: an output `{reservation: {...}}` (one property, an object
 * or a reference) wraps it, so the event carries the inner object; any other output is the resource itself.
 */
export function wrappedResourceKey(output: unknown): string | undefined {
  if (typeof output !== "object" || output === null) return undefined;
  const schema = output as Record<string, unknown>;
  const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
  if (schema.type !== "object" || properties === undefined) return undefined;
  const keys = Object.keys(properties);
  if (keys.length !== 1) return undefined;
  const key = keys[0] as string;
  const inner = properties[key] as Record<string, unknown>;
  return inner.type === "object" || typeof inner.$ref === "string" ? key : undefined;
}
