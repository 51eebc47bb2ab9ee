// Reservation operations (a connected diner's account): create, get, cancel. The gateway keeps a copy of each
// reservation (kinds.ts), so an id of another account is 404 without asking the site.
import { PatternString, StrictObject } from "../schemas.ts";
import { defineOperation } from "../types.ts";
import { site } from "./adapter.ts";
import { reservations } from "./kinds.ts";
import { ContactName, exampleReservation, PartySize, Reservation, ResourceId, RestaurantId } from "./schemas.ts";

const ReservationInput = StrictObject({ reservation_id: ResourceId("reservation") });
const exampleId = { reservation_id: exampleReservation.id };

export const createReservation = defineOperation({
  id: "create_reservation",
  summary: "Reserve a table",
  description:
    "Books the slot for the party. An instant venue answers `confirmed`; an approval venue answers `pending` and " +
    "confirms later (event reservation.confirmed). A slot already taken is 409 conflict; a party the table cannot " +
    "seat is 422 provider_rejected. Send an Idempotency-Key to retry safely. Also `POST /v1/dining/reservations`.",
  auth: "credentials",
  input: StrictObject({
    restaurant_id: RestaurantId,
    slot_id: PatternString("^slot_[a-z0-9_]{1,95}$", 'must be a slot id from list_slots ("slot_…")', {
      description: "A slot id from list_slots.",
    }),
    party_size: PartySize,
    contact_name: ContactName,
  }),
  output: Reservation,
  example: {
    input: {
      restaurant_id: "rst_instant",
      slot_id: "slot_instant_20271224_2000_t2",
      party_size: 2,
      contact_name: "山田 花子",
    },
    output: exampleReservation,
  },
  async handle(input, ctx) {
    const { booking } = await site.book(ctx, input.restaurant_id, {
      slot_key: input.slot_id,
      seats: input.party_size,
      guest_name: input.contact_name,
    });
    return { data: await reservations.created(ctx, booking) };
  },
});

export const getReservation = defineOperation({
  id: "get_reservation",
  summary: "Read a reservation",
  description: "The reservation as the venue has it now. Also `GET /v1/dining/reservations/{reservation_id}`.",
  auth: "credentials",
  readOnly: true,
  input: ReservationInput,
  output: Reservation,
  example: { input: exampleId, output: exampleReservation },
  async handle(input, ctx) {
    const data = await reservations.refresh(ctx, input.reservation_id);
    return { data };
  },
});

export const cancelReservation = defineOperation({
  id: "cancel_reservation",
  summary: "Cancel a reservation",
  description:
    "Cancels a pending or confirmed reservation while the venue's cancellation window is open (event " +
    "reservation.cancelled). After `cancellation_deadline` the venue refuses: 422 provider_rejected, nothing changes. " +
    "Cancelling a cancelled reservation is 409 conflict. Also `DELETE /v1/dining/reservations/{reservation_id}`.",
  auth: "credentials",
  input: ReservationInput,
  output: Reservation,
  example: {
    input: exampleId,
    output: {
      ...exampleReservation,
      status: "cancelled" as const,
      cancelled_by: "caller" as const,
      updated_at: "2027-12-02T01:00:00.000Z",
      cancelled_at: "2027-12-02T01:00:00.000Z",
    },
  },
  async handle(input, ctx) {
    const data = await reservations.transition(ctx, input.reservation_id, "cancelled", async (bookingNo) => {
      return (await site.cancel(ctx, bookingNo)).booking;
    });
    return { data };
  },
});
