// The dining provider's API objects and input fields: restaurant, slot, reservation (with what a caller needs: slot,
// contact name, the venue's booking reference, the cancellation deadline, timestamps) and waitlist entry.
// Venue times carry the +09:00 offset; record timestamps are UTC.
import { Type } from "@sinclair/typebox";
import { Money, Nullable, notBlank, PatternString } from "../schemas.ts";

const Tokyo = (description: string) =>
  PatternString("\\+09:00$", "must end in +09:00 (Japan time)", {
    format: "date-time",
    description: `${description} (ISO 8601, +09:00).`,
  });
const Utc = (description: string) => Type.String({ format: "date-time", description: `${description} (UTC).` });
const oneOf = <T extends string>(values: readonly T[], description: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { description },
  );

export const RestaurantId = PatternString(
  "^rst_[a-z0-9_]{1,60}$",
  'must be a restaurant id: "rst_" and 1 to 60 lower-case letters, digits or underscores',
  {
    description: "Restaurant id, e.g. `rst_instant` (confirms at once), `rst_approval`, `rst_strict`.",
  },
);
export const PartySize = Type.Integer({ minimum: 1, maximum: 20, description: "Number of people, 1 to 20." });
export const ContactName = PatternString("\\S", notBlank, {
  maxLength: 100,
  description: "Name the table is held under (personal data: never logged).",
});
/** Resource ids are matched exactly: anything not issued to the caller's account is 404, malformed or not. */
export const ResourceId = (what: string) =>
  Type.String({ minLength: 1, maxLength: 64, description: `The ${what} id returned when it was created.` });

export const Restaurant = Type.Object(
  {
    id: Type.String(),
    name: Type.String({ description: "Name in Japanese." }),
    name_en: Type.String(),
    cuisine: Type.String({ description: "e.g. sushi, kaiseki, yakitori, ramen, french." }),
    area: Type.String({ description: "Tokyo neighbourhood, e.g. ginza, shibuya, kagurazaka." }),
    address: Type.String(),
    nearest_station: Type.String(),
    phone: Type.String(),
    booking_mode: oneOf(
      ["instant", "approval"],
      "instant: confirmed at once; approval: pending until the venue confirms.",
    ),
    cancellation_policy: Type.Object(
      {
        type: oneOf(["until_hours_before", "none_after_confirmation"], "How long the caller may cancel."),
        hours: Nullable(Type.Integer({ description: "For until_hours_before: hours before the start." })),
      },
      { additionalProperties: false },
    ),
    price_range: Type.Object({ lunch: Nullable(Money), dinner: Money }, { additionalProperties: false }),
    max_party_size: Type.Integer({ description: "Largest party a table seats (0: no reservations)." }),
    reservable: Type.Boolean({ description: "Takes reservations (list_slots has slots)." }),
    waitlist: Type.Boolean({ description: "Keeps a waitlist for walk-in parties (join_waitlist)." }),
    closed_weekdays: Type.Array(Type.String({ description: "monday … sunday" })),
  },
  { additionalProperties: false },
);

export const Slot = Type.Object(
  {
    id: Type.String({ description: "`slot_…`: pass it to create_reservation." }),
    restaurant_id: Type.String(),
    starts_at: Tokyo("Start of the seating"),
    ends_at: Tokyo("End of the seating"),
    min_party_size: Type.Integer(),
    max_party_size: Type.Integer(),
    seating: Type.String({ description: "counter, table, tatami or private_room." }),
  },
  { additionalProperties: false },
);

export const reservationStatuses = ["pending", "confirmed", "cancelled"] as const;

export const Reservation = Type.Object(
  {
    id: Type.String({ description: "`rsv_` + 22 characters." }),
    status: oneOf(reservationStatuses, "pending (the venue has to confirm), confirmed, cancelled."),
    restaurant_id: Type.String(),
    slot_id: Type.String(),
    starts_at: Tokyo("Start time"),
    party_size: Type.Integer(),
    contact_name: Type.String(),
    booking_reference: Type.String({ description: "The venue's own booking number (quote it to the restaurant)." }),
    cancellation_deadline: Nullable(Tokyo("Until when the caller may cancel; null while not known yet")),
    cancelled_by: Nullable(oneOf(["caller", "venue"], "Who cancelled; null unless cancelled.")),
    created_at: Utc("When it was requested"),
    updated_at: Utc("Last change"),
    confirmed_at: Nullable(Utc("When the venue confirmed")),
    cancelled_at: Nullable(Utc("When it was cancelled")),
  },
  { additionalProperties: false },
);

export const waitlistStatuses = ["waiting", "called", "seated", "expired", "left"] as const;

export const WaitlistEntry = Type.Object(
  {
    id: Type.String({ description: "`wl_` + 22 characters." }),
    status: oneOf(waitlistStatuses, "waiting, called (come to the venue now), seated, expired (no show), left."),
    restaurant_id: Type.String(),
    party_size: Type.Integer(),
    contact_name: Type.String(),
    ticket_number: Type.Integer({ description: "The number the venue calls out." }),
    quoted_wait_minutes: Type.Integer({ description: "The venue's estimate when the party joined." }),
    respond_by: Nullable(Tokyo("When called: the party must arrive by then or the entry expires")),
    created_at: Utc("When the party joined"),
    updated_at: Utc("Last change"),
    called_at: Nullable(Utc("When the venue called the party")),
    closed_at: Nullable(Utc("When it was seated, expired or left")),
  },
  { additionalProperties: false },
);

export const exampleReservation = {
  id: "rsv_4fK9s2LmQ8xW1zR7tY3bNc",
  status: "confirmed" as const,
  restaurant_id: "rst_instant",
  slot_id: "slot_instant_20271224_2000_t2",
  starts_at: "2027-12-24T20:00:00+09:00",
  party_size: 2,
  contact_name: "山田 花子",
  booking_reference: "TT-7F3K9Q2M",
  cancellation_deadline: "2027-12-23T20:00:00+09:00",
  cancelled_by: null,
  created_at: "2027-12-01T03:15:00.000Z",
  updated_at: "2027-12-01T03:15:00.000Z",
  confirmed_at: "2027-12-01T03:15:00.000Z",
  cancelled_at: null,
};

export const exampleWaitlistEntry = {
  id: "wl_8Hq2Vn5cXe0Lp6Tj3Rm9Ya",
  status: "waiting" as const,
  restaurant_id: "rst_shibuya_ramen",
  party_size: 2,
  contact_name: "山田 花子",
  ticket_number: 23,
  quoted_wait_minutes: 30,
  respond_by: null,
  created_at: "2027-12-01T03:15:00.000Z",
  updated_at: "2027-12-01T03:15:00.000Z",
  called_at: null,
  closed_at: null,
};
