// The ride state machine over real HTTP, every transition including the refused ones: requested → driver_assigned →
// arriving → in_progress → completed step by step, the car's position and ETA moving at each step and within a state
// (ride.updated every time, its data.object equal to get_ride then), the same run paced by the sandbox's tick,
// cancellation by the caller before boarding and by the driver, 409 for cancelling in progress, completed or twice.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  callOperation,
  delivered,
  deliveredTypes,
  type ProviderSetup,
  receivedAbout,
} from "../stateful/provider-setup.ts";
import { eventually } from "../webhooks/fake-clock.ts";
import { dispatch, getRide, pace, requestRide, shibuyaStation, startRides, tokyoStation } from "./setup.ts";

let s: ProviderSetup;
beforeAll(async () => {
  s = await startRides();
});
afterAll(async () => s?.close());

const cancel = (id: string) => callOperation(s, "cancel_ride", { ride_id: id });
/** Straight-line metres between two {lat, lng}. */
function meters(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const rad = (d: number) => (d * Math.PI) / 180;
  const h =
    Math.sin(rad(b.lat - a.lat) / 2) ** 2 +
    Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(rad(b.lng - a.lng) / 2) ** 2;
  return 2 * 6_371_000 * Math.asin(Math.sqrt(h));
}
const statuses = ["driver_assigned", "driver_assigned", "arriving", "in_progress", "in_progress", "completed"];

/** Moves the ride one step at the sandbox; checks its ride.updated (the n-th) and that get_ride answers that object. */
async function step(ride: { id: string; ride_reference: string }) {
  const count = receivedAbout(s, ride.id).length;
  const native = await dispatch(s, "advance", ride);
  expect(native.trip_id).toBe(ride.ride_reference);
  const event = await delivered(
    s,
    "ride.updated",
    ride.id,
    (object) => object.updated_at === new Date(native.updated_ms).toISOString(),
  );
  expect(receivedAbout(s, ride.id)).toHaveLength(count + 1);
  expect(event.data.object).toEqual(await getRide(s, ride.id));
  return event.data.object;
}

describe("from requested to completed", () => {
  it("answers requested with the fare estimate in JPY and no car yet, in the envelope", async () => {
    const created = await callOperation(s, "request_ride", { pickup: tokyoStation, dropoff: shibuyaStation });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toEqual({
      data: created.body.data,
      meta: { source: "rides", fetched_at: expect.any(String) },
      pagination: null,
    });
    const ride = created.body.data;
    expect(ride).toEqual({
      id: expect.stringMatching(/^ride_[0-9A-Za-z]{22}$/),
      status: "requested",
      product: "standard",
      pickup: tokyoStation,
      dropoff: shibuyaStation,
      driver: null,
      car_location: null,
      eta_seconds: null,
      distance_km: 8.4,
      fare_estimate: { amount: 3400, currency: "JPY" },
      fare: null,
      ride_reference: expect.stringMatching(/^MT-[0-9A-Z]{8}$/),
      cancelled_by: null,
      created_at: expect.any(String),
      updated_at: ride.created_at,
      picked_up_at: null,
      completed_at: null,
      cancelled_at: null,
    });
    expect(await getRide(s, ride.id)).toEqual(ride);
    expect(deliveredTypes(s, ride.id)).toEqual([]);
  });

  it("each step is one ride.updated whose object get_ride answers; the car closes in and the ETA falls", async () => {
    const ride = await requestRide(s);
    const assigned = await step(ride);
    expect(assigned).toMatchObject({ status: "driver_assigned", eta_seconds: 240 });
    expect(assigned.driver).toEqual({
      name: expect.any(String),
      vehicle: expect.any(String),
      license_plate: expect.any(String),
      rating: expect.any(Number),
    });
    expect(meters(assigned.car_location, tokyoStation)).toBeGreaterThan(1000);
    const closer = await step(ride);
    expect(closer).toMatchObject({ status: "driver_assigned", eta_seconds: 120, driver: assigned.driver });
    expect(meters(closer.car_location, tokyoStation)).toBeLessThan(meters(assigned.car_location, tokyoStation));
    const arriving = await step(ride);
    expect(arriving).toMatchObject({ status: "arriving", eta_seconds: 24 });
    expect(meters(arriving.car_location, tokyoStation)).toBeLessThan(200);
    const aboard = await step(ride);
    expect(aboard).toMatchObject({
      status: "in_progress",
      car_location: tokyoStation,
      picked_up_at: aboard.updated_at,
    });
    expect(aboard.eta_seconds).toBeGreaterThan(1500);
    const halfway = await step(ride);
    expect(halfway.status).toBe("in_progress");
    expect(halfway.eta_seconds).toBe(Math.round(aboard.eta_seconds / 2));
    const done = await step(ride);
    expect(done).toMatchObject({
      status: "completed",
      car_location: shibuyaStation,
      eta_seconds: null,
      fare: { amount: 3400, currency: "JPY" },
      completed_at: done.updated_at,
    });
    expect(receivedAbout(s, ride.id).map((e) => e.data.object.status)).toEqual(statuses);
    expect(deliveredTypes(s, ride.id)).toEqual(statuses.map(() => "ride.updated"));
  });

  it("paced by the sandbox's tick, the ride goes all the way by itself with an event per change", async () => {
    await pace(s, 30);
    try {
      const ride = await requestRide(s, { product: "premium" });
      const last = await delivered(s, "ride.updated", ride.id, (object) => object.status === "completed");
      await eventually(() => (receivedAbout(s, ride.id).length >= statuses.length ? true : undefined));
      const events = receivedAbout(s, ride.id).sort((a, b) =>
        a.data.object.updated_at.localeCompare(b.data.object.updated_at),
      );
      expect(events.map((e) => e.data.object.status)).toEqual(statuses);
      const etas = events.map((e) => e.data.object.eta_seconds);
      expect(etas.slice(0, 3)).toEqual([480, 240, 48]);
      expect(last.data.object).toMatchObject({ product: "premium", fare: { amount: 5100, currency: "JPY" } });
      expect(last.data.object).toEqual(await getRide(s, ride.id));
    } finally {
      await pace(s, null);
    }
  });
});

describe("cancellation", () => {
  it("by the caller before boarding: cancelled, ride.updated with the object get_ride answers; twice is 409", async () => {
    for (const steps of [0, 1, 3]) {
      const ride = await requestRide(s);
      for (let i = 0; i < steps; i++) await step(ride);
      const cancelled = await cancel(ride.id);
      expect(cancelled.status, cancelled.text).toBe(200);
      expect(cancelled.body.data).toMatchObject({
        id: ride.id,
        status: "cancelled",
        cancelled_by: "caller",
        eta_seconds: null,
        cancelled_at: cancelled.body.data.updated_at,
      });
      const event = await delivered(s, "ride.updated", ride.id, (object) => object.status === "cancelled");
      expect(event.data.object).toEqual(cancelled.body.data);
      expect(event.data.object).toEqual(await getRide(s, ride.id));
      const again = await cancel(ride.id);
      expect(again.status).toBe(409);
      expect(again.body.error).toEqual({
        code: "conflict",
        message: `The ride ${ride.id} is cancelled: it cannot become cancelled`,
        request_id: again.headers.get("x-request-id"),
        retryable: false,
        details: { reason: "illegal_transition", status: "cancelled", requested: "cancelled" },
        fix: "Read the ride again and act on its current status.",
      });
      expect(await getRide(s, ride.id)).toEqual(cancelled.body.data);
    }
  });

  it("is 409 conflict once the rider is aboard and after the drop-off, and changes nothing", async () => {
    const ride = await requestRide(s);
    for (let i = 0; i < 4; i++) await step(ride);
    const aboard = await getRide(s, ride.id);
    const refused = await cancel(ride.id);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: "conflict",
      details: { reason: "illegal_transition", status: "in_progress", requested: "cancelled" },
    });
    expect(await getRide(s, ride.id)).toEqual(aboard);
    await step(ride);
    await step(ride);
    const late = await cancel(ride.id);
    expect(late.status).toBe(409);
    expect(late.body.error.details).toEqual({
      reason: "illegal_transition",
      status: "completed",
      requested: "cancelled",
    });
    expect((await getRide(s, ride.id)).status).toBe("completed");
    expect(deliveredTypes(s, ride.id)).toHaveLength(6);
  });

  it("by the driver: cancelled by the driver, ride.updated; then the caller's cancel is 409", async () => {
    const ride = await requestRide(s);
    await step(ride);
    const native = await dispatch(s, "cancel", ride);
    expect(native.phase).toBe("CANCELED");
    const event = await delivered(s, "ride.updated", ride.id, (object) => object.status === "cancelled");
    expect(event.data.object).toMatchObject({ cancelled_by: "driver", eta_seconds: null });
    expect(event.data.object).toEqual(await getRide(s, ride.id));
    expect((await cancel(ride.id)).status).toBe(409);
  });
});
