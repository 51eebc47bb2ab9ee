// Types of the webhook events the gateway delivers: one envelope, a discriminated union over `type`.
// Types only (plus the list of known type names), so importing them costs nothing at runtime. The objects of events
// whose resource has a get_… operation come from the generated operation types (GeneratedEventObjects).
import type { GeneratedEventObjects } from "./operations.generated.ts";

/** Every event type the gateway sends today. New types are announced; a receiver ignores types it does not know. */
export const WEBHOOK_EVENT_TYPES = [
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

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The envelope of every event: `data.object` is the resource exactly as the API returns it. */
export interface WebhookEventEnvelope<TType extends string = string, TObject = Record<string, unknown>> {
  /** `evt_…`, equal to the `Gateway-Event-Id` header; stable across redeliveries, so dedupe on it. */
  id: string;
  type: TType;
  /** ISO 8601 UTC date-time. */
  created_at: string;
  data: { object: TObject };
}

export type ReservationStatus = "pending" | "confirmed" | "cancelled" | (string & {});

/** A dining reservation. Fields beyond these may be present. */
export interface Reservation {
  id: string;
  status: ReservationStatus;
  restaurant_id: string;
  /** ISO 8601 date-time with offset. */
  starts_at: string;
  party_size: number;
  [field: string]: unknown;
}

/**
 * `data.object` per event type before generation: the reservation with the fields it always has, open records for the
 * resources whose get_… operation this SDK version does not know yet.
 */
interface BaseEventObjects {
  "reservation.confirmed": Reservation;
  "reservation.cancelled": Reservation;
  "waitlist.called": Record<string, unknown>;
  "order.updated": Record<string, unknown>;
  "payment.approved": Record<string, unknown>;
  "payment.declined": Record<string, unknown>;
  "ride.updated": Record<string, unknown>;
  "connection.created": Record<string, unknown>;
  "connection.deleted": Record<string, unknown>;
  "connection.needs_reauth": Record<string, unknown>;
  "price_watch.triggered": Record<string, unknown>;
  "test.event": Record<string, unknown>;
}

/**
 * `data.object` per event type: exactly the resource as its get_… operation returns it (generated from the gateway's
 * schemas) where that operation exists, else the base shape above.
 */
export type WebhookEventObjects = Omit<BaseEventObjects, keyof GeneratedEventObjects> & GeneratedEventObjects;

/** Any known event; `switch (event.type)` narrows `event.data.object`. */
export type WebhookEvent = {
  [TType in WebhookEventType]: WebhookEventEnvelope<TType, WebhookEventObjects[TType]>;
}[WebhookEventType];

/** The event of one type, e.g. `WebhookEventOf<"reservation.confirmed">`. */
export type WebhookEventOf<TType extends WebhookEventType> = Extract<WebhookEvent, { type: TType }>;
