// The reservation state machine over real HTTP, every transition including the refused ones: instant confirmation,
// pending then the venue's confirmation (reservation.confirmed), cancellation by the caller inside the window and by
// the venue (reservation.cancelled), the closed window of rst_strict (422, state unchanged), a taken slot (409), a
// second cancellation (409). Each event is verified with the SDK and its data.object equals get_reservation then.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type DiningSetup,
  delivered,
  deliveredTypes,
  dining,
  freeSlot,
  startDining,
  untilStatus,
  venue,
} from "./setup.ts";

let s: DiningSetup;
beforeAll(async () => {
  s = await startDining();
});
afterAll(async () => s?.close());

const contact = "山田 花子";

async function reserve(restaurantId: string, partySize = 2) {
  const slot = await freeSlot(s, restaurantId, partySize);
  const created = await dining(s, "create_reservation", {
    restaurant_id: restaurantId,
    slot_id: slot.id,
    party_size: partySize,
    contact_name: contact,
  });
  expect(created.status, created.text).toBe(200);
  return { slot, reservation: created.body.data, envelope: created.body };
}

const get = async (id: string) => {
  const read = await dining(s, "get_reservation", { reservation_id: id });
  expect(read.status, read.text).toBe(200);
  return read.body.data;
};

describe("rst_instant: confirmed at once, cancellable while the window is open", () => {
  it("answers confirmed in the envelope, with every reservation field and the slot's start in Tokyo time", async () => {
    const { slot, reservation, envelope } = await reserve("rst_instant");
    expect(envelope).toEqual({
      data: reservation,
      meta: { source: "dining", fetched_at: expect.any(String) },
      pagination: null,
    });
    expect(reservation).toEqual({
      id: expect.stringMatching(/^rsv_[0-9A-Za-z]{22}$/),
      status: "confirmed",
      restaurant_id: "rst_instant",
      slot_id: slot.id,
      starts_at: slot.starts_at,
      party_size: 2,
      contact_name: contact,
      booking_reference: expect.stringMatching(/^TT-[0-9A-Z]{8}$/),
      cancellation_deadline: expect.stringMatching(/\+09:00$/),
      cancelled_by: null,
      created_at: expect.any(String),
      updated_at: reservation.created_at,
      confirmed_at: reservation.created_at,
      cancelled_at: null,
    });
    expect(reservation.starts_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00\+09:00$/);
    expect(Date.parse(reservation.starts_at) - Date.parse(reservation.cancellation_deadline)).toBe(24 * 3600_000);
    expect(await get(reservation.id)).toEqual(reservation);
  });

  it("caller cancellation: cancelled by the caller, reservation.cancelled with the object get answers; twice is 409", async () => {
    const { reservation } = await reserve("rst_instant");
    const cancelled = await dining(s, "cancel_reservation", { reservation_id: reservation.id });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.data).toMatchObject({ id: reservation.id, status: "cancelled", cancelled_by: "caller" });
    const event = await delivered(s, "reservation.cancelled", reservation.id);
    expect(event.data.object).toEqual(await get(reservation.id));
    expect(event.data.object).toEqual(cancelled.body.data);

    const again = await dining(s, "cancel_reservation", { reservation_id: reservation.id });
    expect(again.status).toBe(409);
    expect(again.body.error).toEqual({
      code: "conflict",
      message: `The reservation ${reservation.id} is cancelled: it cannot become cancelled`,
      request_id: again.headers.get("x-request-id"),
      retryable: false,
      details: { reason: "illegal_transition", status: "cancelled", requested: "cancelled" },
      fix: "Read the reservation again and act on its current status.",
    });
    expect(await get(reservation.id)).toEqual(cancelled.body.data);
    expect(deliveredTypes(s, reservation.id)).toEqual(["reservation.cancelled"]);
  });

  it("venue cancellation of a confirmed table: cancelled by the venue, reservation.cancelled", async () => {
    const { reservation } = await reserve("rst_instant");
    await venue(s, "cancel", { booking_no: reservation.booking_reference });
    const event = await delivered(s, "reservation.cancelled", reservation.id);
    expect(event.data.object).toMatchObject({ status: "cancelled", cancelled_by: "venue" });
    expect(event.data.object).toEqual(await get(reservation.id));
    expect((await dining(s, "cancel_reservation", { reservation_id: reservation.id })).status).toBe(409);
  });
});

describe("rst_approval: pending until the venue confirms", () => {
  it("answers pending, then the venue confirms after its delay: reservation.confirmed with the object get answers", async () => {
    const { reservation } = await reserve("rst_approval");
    expect(reservation).toMatchObject({ status: "pending", confirmed_at: null, cancelled_by: null });
    const event = await delivered(s, "reservation.confirmed", reservation.id);
    expect(event.data.object).toMatchObject({
      id: reservation.id,
      status: "confirmed",
      confirmed_at: expect.any(String),
    });
    expect(event.data.object).toEqual(await get(reservation.id));

    const cancelled = await dining(s, "cancel_reservation", { reservation_id: reservation.id });
    expect(cancelled.body.data).toMatchObject({ status: "cancelled", cancelled_by: "caller" });
    const cancelledEvent = await delivered(s, "reservation.cancelled", reservation.id);
    expect(cancelledEvent.data.object).toEqual(await get(reservation.id));
    expect(deliveredTypes(s, reservation.id)).toEqual(["reservation.confirmed", "reservation.cancelled"]);
  });

  it("a pending request can be withdrawn by the caller or declined by the venue, and is never confirmed after", async () => {
    await venue(s, "settings", { venue_delay_ms: 60_000 });
    try {
      const withdrawn = (await reserve("rst_approval")).reservation;
      const declined = (await reserve("rst_approval")).reservation;
      const cancelled = await dining(s, "cancel_reservation", { reservation_id: withdrawn.id });
      expect(cancelled.body.data).toMatchObject({ status: "cancelled", cancelled_by: "caller", confirmed_at: null });
      expect((await delivered(s, "reservation.cancelled", withdrawn.id)).data.object).toEqual(await get(withdrawn.id));

      await venue(s, "cancel", { booking_no: declined.booking_reference });
      const event = await delivered(s, "reservation.cancelled", declined.id);
      expect(event.data.object).toMatchObject({ status: "cancelled", cancelled_by: "venue", confirmed_at: null });
      expect(event.data.object).toEqual(await get(declined.id));
      const late = await fetch(`${s.sandboxUrl}/_sandbox/venue/confirm`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ booking_no: declined.booking_reference }),
      });
      expect(late.status).toBe(409);
      expect(deliveredTypes(s, declined.id)).toEqual(["reservation.cancelled"]);
    } finally {
      await venue(s, "settings", { venue_delay_ms: 100 });
    }
  });

  it("a cancellation that overtakes the venue's confirmation hook still announces the confirmation, then the cancellation", async () => {
    await venue(s, "settings", { venue_delay_ms: 60_000 });
    s.holdHooks(true);
    try {
      const { reservation } = await reserve("rst_approval");
      await venue(s, "confirm", { booking_no: reservation.booking_reference });
      // The site answers the cancellation with the booking as it is now: confirmed, then cancelled by the caller.
      const cancelled = await dining(s, "cancel_reservation", { reservation_id: reservation.id });
      expect(cancelled.body.data).toMatchObject({ status: "cancelled", cancelled_by: "caller" });
      expect(cancelled.body.data.confirmed_at).toEqual(expect.any(String));
      // Both are recorded in the cancellation's transaction, confirmed first; deliveries may arrive in either order.
      const event = await delivered(s, "reservation.cancelled", reservation.id);
      expect(event.data.object).toEqual(await get(reservation.id));
      const confirmed = await delivered(s, "reservation.confirmed", reservation.id);
      expect(confirmed.data.object).toEqual(event.data.object);
      expect(deliveredTypes(s, reservation.id).sort()).toEqual(["reservation.cancelled", "reservation.confirmed"]);
    } finally {
      s.holdHooks(false);
      await venue(s, "settings", { venue_delay_ms: 100 });
    }
  });
});

describe("rst_strict: the cancellation window closes once confirmed", () => {
  it("refuses the caller's cancellation with 422 provider_rejected from dining and changes nothing", async () => {
    const { reservation } = await reserve("rst_strict");
    expect(reservation.status).toBe("confirmed");
    expect(reservation.cancellation_deadline).not.toBeNull();
    expect(Date.parse(reservation.cancellation_deadline)).toBeLessThanOrEqual(Date.now());
    const refused = await dining(s, "cancel_reservation", { reservation_id: reservation.id });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({
      code: "provider_rejected",
      provider: "dining",
      retryable: false,
      message: expect.stringContaining("no longer accepts cancellations"),
    });
    expect(await get(reservation.id)).toEqual(reservation);
    const again = await dining(s, "cancel_reservation", { reservation_id: reservation.id });
    expect(again.status).toBe(422);
    expect(deliveredTypes(s, reservation.id)).toEqual([]);
  });

  it("the venue itself may still cancel: reservation.cancelled", async () => {
    const { reservation } = await reserve("rst_strict");
    await venue(s, "cancel", { booking_no: reservation.booking_reference });
    const event = await delivered(s, "reservation.cancelled", reservation.id);
    expect(event.data.object).toEqual(
      await untilStatus(s, "get_reservation", { reservation_id: reservation.id }, "cancelled"),
    );
  });
});

describe("slots", () => {
  it("a taken slot is 409 conflict from dining and leaves list_slots; a cancelled one is free again", async () => {
    const { slot, reservation } = await reserve("rst_instant");
    const date = slot.starts_at.slice(0, 10);
    const taken = await dining(s, "create_reservation", {
      restaurant_id: "rst_instant",
      slot_id: slot.id,
      party_size: 2,
      contact_name: "佐藤 一郎",
    });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatchObject({ code: "conflict", provider: "dining", retryable: false });
    const listed = await dining(s, "list_slots", { restaurant_id: "rst_instant", date, party_size: 2 });
    expect(listed.body.data.slots.map((x: any) => x.id)).not.toContain(slot.id);
    await dining(s, "cancel_reservation", { reservation_id: reservation.id });
    const again = await dining(s, "list_slots", { restaurant_id: "rst_instant", date, party_size: 2 });
    expect(again.body.data.slots.map((x: any) => x.id)).toContain(slot.id);
  });

  it("lists slots in Tokyo time that fit the party, and search_restaurants filters and pages", async () => {
    const slot = await freeSlot(s, "rst_instant", 5);
    expect(slot).toMatchObject({ id: expect.stringMatching(/^slot_/), min_party_size: 2, max_party_size: 6 });
    const page1 = await dining(s, "search_restaurants", { limit: 4 });
    expect(page1.body.data.total).toBe(10);
    expect(page1.body.pagination).toEqual({ next_cursor: expect.any(String), has_more: true });
    const page3 = await dining(s, "search_restaurants", {
      limit: 4,
      cursor: (await dining(s, "search_restaurants", { limit: 4, cursor: page1.body.pagination.next_cursor })).body
        .pagination.next_cursor,
    });
    expect(page3.body.data.restaurants).toHaveLength(2);
    expect(page3.body.pagination).toEqual({ next_cursor: null, has_more: false });
    const sushi = await dining(s, "search_restaurants", { cuisine: "sushi", party_size: 6 });
    expect(sushi.body.data.restaurants.map((r: any) => r.id)).toEqual(["rst_instant"]);
  });
});
