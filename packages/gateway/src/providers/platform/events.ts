// Platform operations on the account's event log (kept 30 days): list, read, see deliveries and attempts, redeliver.
import { Type } from "@sinclair/typebox";
import { Cursor, Limit, StrictObject } from "../schemas.ts";
import { defineOperation } from "../types.ts";
import { Delivery, EventEnvelope, EventTypeName, exampleDelivery, exampleEvent } from "./event-schemas.ts";

// No pattern on ids: a malformed id is as unknown as a foreign one, and gets the same 404.
const EventId = Type.String({ minLength: 1, maxLength: 64, description: "`evt_…`" });

export const listEvents = defineOperation({
  id: "list_events",
  summary: "List events",
  description: "The account's events of the last 30 days, newest first, optionally of one type; paginated by cursor.",
  auth: "none",
  readOnly: true,
  input: StrictObject({
    type: Type.Optional(EventTypeName),
    cursor: Type.Optional(Cursor),
    limit: Type.Optional(Limit),
  }),
  output: Type.Object({ events: Type.Array(EventEnvelope) }, { additionalProperties: false }),
  example: { input: { type: "reservation.confirmed", limit: 20 }, output: { events: [exampleEvent] } },
  async handle(input, ctx) {
    const { events, pagination } = await ctx.core.events.list(ctx.accountId, {
      type: input.type,
      cursor: input.cursor,
      limit: input.limit ?? 20,
    });
    return { data: { events }, pagination };
  },
});

export const getEvent = defineOperation({
  id: "get_event",
  summary: "Read an event",
  description: "One event of the account, exactly as delivered. 404 for unknown, foreign or expired ids.",
  auth: "none",
  readOnly: true,
  input: StrictObject({ event_id: EventId }),
  output: Type.Object({ event: EventEnvelope }, { additionalProperties: false }),
  example: { input: { event_id: exampleEvent.id }, output: { event: exampleEvent } },
  async handle(input, ctx) {
    return { data: { event: await ctx.core.events.get(ctx.accountId, input.event_id) } };
  },
});

export const listEventDeliveries = defineOperation({
  id: "list_event_deliveries",
  summary: "List an event's deliveries",
  description:
    "Each delivery of the event (the first, and one per redelivery) with every attempt: time, status code, latency, " +
    "error and the first 1 KiB of the response.",
  auth: "none",
  readOnly: true,
  input: StrictObject({ event_id: EventId }),
  output: Type.Object({ deliveries: Type.Array(Delivery) }, { additionalProperties: false }),
  example: { input: { event_id: exampleEvent.id }, output: { deliveries: [exampleDelivery] } },
  async handle(input, ctx) {
    return { data: { deliveries: await ctx.core.webhooks.deliveries.list(ctx.accountId, input.event_id) } };
  },
});

export const redeliverEvent = defineOperation({
  id: "redeliver_event",
  summary: "Redeliver an event",
  description:
    "Delivers the event again to the current endpoint, with the same id (receivers dedupe on it) and a new 24-hour " +
    "retry window. 409 (`details.reason` `no_webhook_endpoint`) when the account has no endpoint.",
  auth: "none",
  input: StrictObject({ event_id: EventId }),
  output: Type.Object({ delivery: Delivery }, { additionalProperties: false }),
  example: {
    input: { event_id: exampleEvent.id },
    output: {
      delivery: {
        ...exampleDelivery,
        status: "pending",
        attempt_count: 0,
        next_attempt_at: "2026-11-21T10:00:00.000Z",
        deadline_at: "2026-11-22T10:00:00.000Z",
        completed_at: null,
        attempts: [],
      },
    },
  },
  async handle(input, ctx) {
    return { data: { delivery: await ctx.core.webhooks.deliveries.redeliver(ctx.accountId, input.event_id) } };
  },
});
