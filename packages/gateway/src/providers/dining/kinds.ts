// The dining provider's stateful resources (providers/stateful): reservations and waitlist entries, their legal
// transitions by a caller's action, and the events their changes cause.
import { defineStatefulResource } from "../stateful/resource.ts";
import { NativeBooking, NativeTicket, site, toReservation, toWaitlistEntry } from "./adapter.ts";
import { Reservation, WaitlistEntry } from "./schemas.ts";

export const reservations = defineStatefulResource({
  kind: "reservation",
  native: NativeBooking,
  schema: Reservation,
  idPrefix: "rsv",
  upstreamId: (native: NativeBooking) => native.booking_no,
  revision: (native: NativeBooking) => native.rev,
  fetch: async (ctx, bookingNo) => (await site.booking(ctx, bookingNo)).booking,
  toObject: toReservation,
  // A caller may withdraw a pending request as well as cancel a confirmed table (inside the venue's window).
  transitions: { pending: ["cancelled"], confirmed: ["cancelled"], cancelled: [] },
  // By the venue's timestamps rather than the status alone: a cancellation answered after a confirmation whose hook
  // has not arrived yet (or that the hook of a later step overtook) still announces that confirmation, first.
  events: (before, after) => [
    ...(before.confirmed_at === null && after.confirmed_at !== null ? ["reservation.confirmed"] : []),
    ...(before.status !== "cancelled" && after.status === "cancelled" ? ["reservation.cancelled"] : []),
  ],
});

export const waitlistEntries = defineStatefulResource({
  kind: "waitlist_entry",
  native: NativeTicket,
  schema: WaitlistEntry,
  idPrefix: "wl",
  upstreamId: (native: NativeTicket) => native.ticket_no,
  revision: (native: NativeTicket) => native.rev,
  fetch: async (ctx, ticketNo) => (await site.ticket(ctx, ticketNo)).ticket,
  toObject: toWaitlistEntry,
  transitions: { waiting: ["left"], called: ["left"], seated: [], expired: [], left: [] },
  // By called_at, as reservations by confirmed_at: an entry left, seated or expired before the call's hook arrived was
  // still called.
  events: (before, after) => (before.called_at === null && after.called_at !== null ? ["waitlist.called"] : []),
});
