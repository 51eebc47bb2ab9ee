// The dining provider (restaurant reservations and waitlists) over the "東京テーブル" partner API: search and slots
// with the API key alone, reservations and waitlist entries for a connected diner. The venue's changes arrive as
// hooks (booking.changed, ticket.changed) and become reservation.* and waitlist.called events.
import { defineProvider } from "../types.ts";
import { nativeErrorMessage } from "./adapter.ts";
import { reservations, waitlistEntries } from "./kinds.ts";
import { cancelReservation, createReservation, getReservation } from "./reservations.ts";
import { listSlots, searchRestaurants } from "./search.ts";
import { getWaitlistEntry, joinWaitlist, leaveWaitlist } from "./waitlist.ts";

export const diningProvider = defineProvider({
  id: "dining",
  title: "Tokyo Table",
  description: "Tokyo restaurants of the 東京テーブル booking site: tables by slot, reservations, walk-in waitlists.",
  sandbox: "dining",
  upstreamErrorMessage: nativeErrorMessage,
  oauth: { scopes: ["booking", "queue"] },
  operations: [
    searchRestaurants,
    listSlots,
    createReservation,
    getReservation,
    cancelReservation,
    joinWaitlist,
    getWaitlistEntry,
    leaveWaitlist,
  ],
  aliases: [
    { method: "POST", path: "/reservations", operation: "create_reservation" },
    { method: "GET", path: "/reservations/:reservation_id", operation: "get_reservation" },
    { method: "DELETE", path: "/reservations/:reservation_id", operation: "cancel_reservation" },
  ],
  async handleHook(event, ctx) {
    switch (event.type) {
      case "booking.changed":
        return reservations.fromHook(ctx, event.data.booking);
      case "ticket.changed":
        return waitlistEntries.fromHook(ctx, event.data.ticket);
      default:
        // Hooks the gateway has no use for are acknowledged, so that the site does not retry them.
        return {};
    }
  },
});
