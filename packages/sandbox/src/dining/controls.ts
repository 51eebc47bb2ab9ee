// Test controls of the dining sandbox (/_sandbox/venue/…): what a venue does by itself, on demand, and its delays.
import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { MillisecondsOrNull } from "../shared/settings.ts";
import type { Venue } from "./venue.ts";

/** What the venue does by itself, on demand (tests): confirm or cancel a booking, call, seat or expire a party. */
export function controlRoutes(app: FastifyInstance, venue: Venue): void {
  const BookingControl = Type.Object({ booking_no: Type.String() });
  // A ticket by its code, or by the call number the gateway's waitlist entry shows as `ticket_number`.
  const TicketControl = Type.Union([
    Type.Object({ ticket_no: Type.String() }, { additionalProperties: false }),
    Type.Object({ ticket_number: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
  ]);
  const { bookings, queue } = venue;
  const bookingActions = { confirm: bookings.confirm, cancel: bookings.cancelByVenue } as const;
  for (const [action, run] of Object.entries(bookingActions)) {
    app.post<{ Body: Static<typeof BookingControl> }>(
      `/_sandbox/venue/${action}`,
      { schema: { body: BookingControl } },
      async (request) => ({ booking: run.call(bookings, request.body.booking_no) }),
    );
  }
  const Settings = Type.Object(
    {
      venue_delay_ms: Type.Optional(Type.Integer({ minimum: 0 })),
      queue_call_ms: Type.Optional(MillisecondsOrNull()),
      queue_hold_ms: Type.Optional(Type.Integer({ minimum: 0 })),
    },
    { additionalProperties: false },
  );
  app.post<{ Body: Static<typeof Settings> }>("/_sandbox/venue/settings", { schema: { body: Settings } }, async (r) =>
    venue.configure({
      ...(r.body.venue_delay_ms !== undefined && { venueDelayMs: r.body.venue_delay_ms }),
      ...(r.body.queue_call_ms !== undefined && { queueCallMs: r.body.queue_call_ms }),
      ...(r.body.queue_hold_ms !== undefined && { queueHoldMs: r.body.queue_hold_ms }),
    }),
  );
  const ticketActions = { call: queue.call, seat: queue.seat, expire: queue.expire } as const;
  for (const [action, run] of Object.entries(ticketActions)) {
    app.post<{ Body: Static<typeof TicketControl> }>(
      `/_sandbox/venue/${action}`,
      { schema: { body: TicketControl } },
      async (request) => {
        const { body } = request;
        return { ticket: run.call(queue, "ticket_no" in body ? body.ticket_no : queue.ticketNoOf(body.ticket_number)) };
      },
    );
  }
}
