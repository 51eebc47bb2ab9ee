// Calls to the booking site's partner API ("東京テーブル" v1: shops, availability, bookings, queue tickets) and the
// one mapping of each native shape onto the API objects. Member calls carry the connection's bearer token.
import { type Static, Type } from "@sinclair/typebox";
import { memberCall } from "../member-call.ts";
import { Revision } from "../schemas.ts";
import type { OperationContext } from "../types.ts";
import type { UpstreamRequest } from "../upstream.ts";
import { inTokyo, inUtc, nullableUtc } from "./tokyo-time.ts";

const NullableString = Type.Union([Type.String(), Type.Null()]);

/** The site's booking as it answers it and pushes it in `booking.changed` hooks. */
export const NativeBooking = Type.Object({
  booking_no: Type.String({ minLength: 1 }),
  shop_code: Type.String(),
  slot_key: Type.String(),
  visit_at: Type.String(),
  seats: Type.Integer(),
  guest_name: Type.String(),
  state: Type.Union([Type.Literal("requested"), Type.Literal("confirmed"), Type.Literal("canceled")]),
  canceled_by: Type.Union([Type.Literal("guest"), Type.Literal("shop"), Type.Null()]),
  cancel_deadline: NullableString,
  requested_at: Type.String(),
  confirmed_at: NullableString,
  canceled_at: NullableString,
  updated_at: Type.String(),
  rev: Revision,
});
export type NativeBooking = Static<typeof NativeBooking>;
const BookingAnswer = Type.Object({ booking: NativeBooking });

/** The site's queue ticket, as answered and pushed in `ticket.changed` hooks. */
export const NativeTicket = Type.Object({
  ticket_no: Type.String({ minLength: 1 }),
  shop_code: Type.String(),
  call_number: Type.Integer(),
  seats: Type.Integer(),
  guest_name: Type.String(),
  state: Type.Union(["waiting", "called", "seated", "no_show", "left"].map((s) => Type.Literal(s))),
  quoted_wait_min: Type.Integer(),
  joined_at: Type.String(),
  called_at: NullableString,
  respond_by: NullableString,
  closed_at: NullableString,
  updated_at: Type.String(),
  rev: Revision,
});
export type NativeTicket = Static<typeof NativeTicket>;
const TicketAnswer = Type.Object({ ticket: NativeTicket });

export interface NativeShop {
  shop_code: string;
  name: string;
  name_en: string;
  genre: string;
  area: string;
  address: string;
  station: string;
  phone: string;
  confirm_mode: "auto" | "request";
  cancel_rule: { kind: "hours_before"; hours: number } | { kind: "none_after_confirmation" };
  budget_jpy: { lunch: number | null; dinner: number };
  queue: boolean;
  closed_weekdays: number[];
  max_seats: number;
  reservable: boolean;
}

export interface NativeSlot {
  slot_key: string;
  start_at: string;
  end_at: string;
  seats_min: number;
  seats_max: number;
  table_type: string;
}

export const nativeErrorMessage = (body: unknown): string | undefined => {
  const detail = (body as { errors?: { detail?: unknown }[] } | null)?.errors?.[0]?.detail;
  return typeof detail === "string" ? detail : undefined;
};

const weekdays = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];
const yen = (amount: number) => ({ amount, currency: "JPY" });

export function toRestaurant(shop: NativeShop) {
  const rule = shop.cancel_rule;
  return {
    id: shop.shop_code,
    name: shop.name,
    name_en: shop.name_en,
    cuisine: shop.genre,
    area: shop.area,
    address: shop.address,
    nearest_station: shop.station,
    phone: shop.phone,
    booking_mode: shop.confirm_mode === "auto" ? ("instant" as const) : ("approval" as const),
    cancellation_policy:
      rule.kind === "hours_before"
        ? { type: "until_hours_before" as const, hours: rule.hours }
        : { type: "none_after_confirmation" as const, hours: null },
    price_range: {
      lunch: shop.budget_jpy.lunch === null ? null : yen(shop.budget_jpy.lunch),
      dinner: yen(shop.budget_jpy.dinner),
    },
    max_party_size: shop.max_seats,
    reservable: shop.reservable,
    waitlist: shop.queue,
    closed_weekdays: shop.closed_weekdays.map((d) => weekdays[d] ?? String(d)),
  };
}

export const toSlot = (restaurantId: string, slot: NativeSlot) => ({
  id: slot.slot_key,
  restaurant_id: restaurantId,
  starts_at: inTokyo(slot.start_at),
  ends_at: inTokyo(slot.end_at),
  min_party_size: slot.seats_min,
  max_party_size: slot.seats_max,
  seating: slot.table_type,
});

const reservationStatus = { requested: "pending", confirmed: "confirmed", canceled: "cancelled" } as const;

/** THE reservation mapping: create, get and cancel answers, the stored copy and reservation.* events use it. */
export const toReservation = (native: NativeBooking, id: string) => ({
  id,
  status: reservationStatus[native.state],
  restaurant_id: native.shop_code,
  slot_id: native.slot_key,
  starts_at: inTokyo(native.visit_at),
  party_size: native.seats,
  contact_name: native.guest_name,
  booking_reference: native.booking_no,
  cancellation_deadline: native.cancel_deadline === null ? null : inTokyo(native.cancel_deadline),
  cancelled_by:
    native.canceled_by === null ? null : native.canceled_by === "guest" ? ("caller" as const) : ("venue" as const),
  created_at: inUtc(native.requested_at),
  updated_at: inUtc(native.updated_at),
  confirmed_at: nullableUtc(native.confirmed_at),
  cancelled_at: nullableUtc(native.canceled_at),
});

const waitlistStatus = {
  waiting: "waiting",
  called: "called",
  seated: "seated",
  no_show: "expired",
  left: "left",
} as const;

/** THE waitlist entry mapping: join, get and leave answers, the stored copy and waitlist.called events use it. */
export const toWaitlistEntry = (native: NativeTicket, id: string) => ({
  id,
  status: waitlistStatus[native.state as keyof typeof waitlistStatus],
  restaurant_id: native.shop_code,
  party_size: native.seats,
  contact_name: native.guest_name,
  ticket_number: native.call_number,
  quoted_wait_minutes: native.quoted_wait_min,
  respond_by: native.respond_by === null ? null : inTokyo(native.respond_by),
  created_at: inUtc(native.joined_at),
  updated_at: inUtc(native.updated_at),
  called_at: nullableUtc(native.called_at),
  closed_at: nullableUtc(native.closed_at),
});

const at = (code: string) => encodeURIComponent(code);

export const site = {
  shops: (ctx: OperationContext, query: NonNullable<UpstreamRequest["query"]>) =>
    ctx.upstream.request<{ shops: NativeShop[]; paging: { page: number; pages: number; total: number } }>({
      path: "/partner/v1/shops",
      query,
    }),
  availability: (ctx: OperationContext, shopCode: string, date: string, seats: number | undefined) =>
    ctx.upstream.request<{ slots: NativeSlot[] }>({
      path: `/partner/v1/shops/${at(shopCode)}/availability`,
      query: seats === undefined ? { date } : { date, seats },
    }),
  book: (ctx: OperationContext, shopCode: string, body: { slot_key: string; seats: number; guest_name: string }) =>
    memberCall(ctx, {
      answer: BookingAnswer,
      method: "POST",
      path: `/partner/v1/shops/${at(shopCode)}/bookings`,
      body,
    }),
  booking: (ctx: OperationContext, bookingNo: string) =>
    memberCall(ctx, { answer: BookingAnswer, path: `/partner/v1/bookings/${at(bookingNo)}` }),
  cancel: (ctx: OperationContext, bookingNo: string) =>
    memberCall(ctx, { answer: BookingAnswer, method: "POST", path: `/partner/v1/bookings/${at(bookingNo)}/cancel` }),
  join: (ctx: OperationContext, shopCode: string, body: { seats: number; guest_name: string }) =>
    memberCall(ctx, { answer: TicketAnswer, method: "POST", path: `/partner/v1/shops/${at(shopCode)}/queue`, body }),
  ticket: (ctx: OperationContext, ticketNo: string) =>
    memberCall(ctx, { answer: TicketAnswer, path: `/partner/v1/queue/${at(ticketNo)}` }),
  leave: (ctx: OperationContext, ticketNo: string) =>
    memberCall(ctx, { answer: TicketAnswer, method: "DELETE", path: `/partner/v1/queue/${at(ticketNo)}` }),
};
