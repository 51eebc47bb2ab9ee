// The venues' bookings: requested → confirmed (at once, or by the venue after its delay) → canceled (by the guest
// inside the cancellation window, or by the venue). Every change raises `rev` and is pushed as booking.changed. Guest
// names are returned to their member only, never put in messages.
import { parseSlotKey, slotView, tokyoIso, tokyoMs } from "./calendar.ts";
import type { Shop } from "./restaurants.ts";
import { DiningError, newCode, shopOf, type VenueContext, withoutMember } from "./venue-context.ts";

export interface Booking {
  booking_no: string;
  shop_code: string;
  slot_key: string;
  visit_at: string;
  seats: number;
  guest_name: string;
  state: "requested" | "confirmed" | "canceled";
  canceled_by: "guest" | "shop" | null;
  /** Until when the guest may cancel; null while a no-cancellation venue has not confirmed yet. */
  cancel_deadline: string | null;
  requested_at: string;
  confirmed_at: string | null;
  canceled_at: string | null;
  updated_at: string;
  rev: number;
}

export class Bookings {
  private readonly bookings = new Map<string, Booking & { member: string }>();

  constructor(private readonly ctx: VenueContext) {}

  isTaken = (slotKey: string): boolean =>
    [...this.bookings.values()].some((b) => b.slot_key === slotKey && b.state !== "canceled");

  book(member: string, shopCode: string, input: { slot_key: string; seats: number; guest_name: string }): Booking {
    const shop = shopOf(shopCode);
    const slot = parseSlotKey(input.slot_key);
    if (!slot || slot.shop !== shop) {
      throw new DiningError(404, "SLOT_NOT_FOUND", `No slot ${input.slot_key} at ${shopCode}`);
    }
    const now = this.ctx.now();
    const startMs = tokyoMs(slot.date, slot.time);
    if (startMs <= now) throw new DiningError(422, "SLOT_PASSED", `The slot ${slot.key} has already started`);
    if (input.seats < slot.table.min || input.seats > slot.table.max) {
      const range = `${slot.table.min} to ${slot.table.max}`;
      throw new DiningError(422, "SEATS_MISMATCH", `Table ${slot.table.no} seats ${range} people, not ${input.seats}`);
    }
    if (this.isTaken(slot.key)) throw new DiningError(409, "SLOT_TAKEN", `The slot ${slot.key} is already booked`);
    const auto = shop.confirm_mode === "auto";
    const at = tokyoIso(now);
    const booking = {
      member,
      booking_no: newCode("TT-"),
      shop_code: shop.shop_code,
      slot_key: slot.key,
      visit_at: slotView(slot).start_at,
      seats: input.seats,
      guest_name: input.guest_name,
      state: auto ? ("confirmed" as const) : ("requested" as const),
      canceled_by: null,
      cancel_deadline: this.deadline(shop, startMs, auto ? now : null),
      requested_at: at,
      confirmed_at: auto ? at : null,
      canceled_at: null,
      updated_at: at,
      rev: 1,
    };
    this.bookings.set(booking.booking_no, booking);
    if (!auto) this.ctx.later(this.ctx.options.venueDelayMs, () => this.confirm(booking.booking_no));
    return withoutMember(booking);
  }

  /** The booking of the member (another member's is not found, as the site answers). */
  booking(member: string, bookingNo: string): Booking {
    const booking = this.bookings.get(bookingNo);
    if (!booking || booking.member !== member) {
      throw new DiningError(404, "BOOKING_NOT_FOUND", `No booking ${bookingNo}`);
    }
    return withoutMember(booking);
  }

  cancelByGuest(member: string, bookingNo: string): Booking {
    const booking = this.booking(member, bookingNo);
    if (booking.state === "canceled") throw new DiningError(409, "ALREADY_CANCELED", `${bookingNo} is canceled`);
    if (booking.cancel_deadline !== null && Date.parse(booking.cancel_deadline) <= this.ctx.now()) {
      throw new DiningError(
        422,
        "CANCEL_WINDOW_CLOSED",
        `The venue no longer accepts cancellations of ${bookingNo} (the window closed at ${booking.cancel_deadline})`,
      );
    }
    return this.changeBooking(bookingNo, { state: "canceled", canceled_by: "guest" });
  }

  /** Venue actions (timers and the /_sandbox/venue controls). */
  confirm(bookingNo: string): Booking {
    const booking = this.venueBooking(bookingNo, ["requested"], "confirm");
    const now = this.ctx.now();
    const shop = shopOf(booking.shop_code);
    return this.changeBooking(bookingNo, {
      state: "confirmed",
      confirmed_at: tokyoIso(now),
      cancel_deadline: this.deadline(shop, Date.parse(booking.visit_at), now),
    });
  }

  cancelByVenue(bookingNo: string): Booking {
    this.venueBooking(bookingNo, ["requested", "confirmed"], "cancel");
    return this.changeBooking(bookingNo, { state: "canceled", canceled_by: "shop" });
  }

  /** Until when a guest may cancel: hours before the visit, or (no cancellation once confirmed) the confirmation. */
  private deadline(shop: Shop, visitMs: number, confirmedMs: number | null): string | null {
    if (shop.cancel_rule.kind === "hours_before") return tokyoIso(visitMs - shop.cancel_rule.hours * 3600_000);
    return confirmedMs === null ? null : tokyoIso(confirmedMs);
  }

  private venueBooking(bookingNo: string, from: Booking["state"][], action: string) {
    const booking = this.bookings.get(bookingNo);
    if (!booking) throw new DiningError(404, "BOOKING_NOT_FOUND", `No booking ${bookingNo}`);
    if (!from.includes(booking.state)) {
      throw new DiningError(409, "INVALID_STATE", `Cannot ${action} ${bookingNo}: it is ${booking.state}`);
    }
    return booking;
  }

  private changeBooking(bookingNo: string, change: Partial<Booking>): Booking {
    const booking = this.bookings.get(bookingNo)!;
    const at = tokyoIso(this.ctx.now());
    Object.assign(booking, change, { updated_at: at, rev: booking.rev + 1 });
    if (change.state === "canceled") booking.canceled_at = at;
    const view = withoutMember(booking);
    void this.ctx.options.push("booking.changed", { booking: view });
    return view;
  }
}
