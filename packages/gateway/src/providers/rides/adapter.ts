// Calls to the taxi company's dispatch API ("みやこ交通" v2: quotes, trips) and the one mapping of each native shape
// onto the API objects. The company speaks [lng, lat] pairs and epoch milliseconds; the API speaks {lat, lng} and
// ISO 8601. Trip calls carry the connection's bearer token.
import { type Static, Type } from "@sinclair/typebox";
import { memberCall } from "../member-call.ts";
import { Revision } from "../schemas.ts";
import type { OperationContext } from "../types.ts";

const LngLat = Type.Tuple([Type.Number(), Type.Number()]);
const NullableMs = Type.Union([Type.Integer(), Type.Null()]);
const phases = ["SEARCHING", "MATCHED", "ARRIVING", "ON_TRIP", "DONE", "CANCELED"] as const;
export const carClasses = ["standard", "premium", "van"] as const;
export type CarClass = (typeof carClasses)[number];

/** The company's trip as it answers it and pushes it in `trip.updated` hooks. */
export const NativeTrip = Type.Object({
  trip_id: Type.String({ minLength: 1 }),
  phase: Type.Union(phases.map((p) => Type.Literal(p))),
  class: Type.Union(carClasses.map((c) => Type.Literal(c))),
  from: LngLat,
  to: LngLat,
  driver: Type.Union([
    Type.Object({ name: Type.String(), car: Type.String(), plate: Type.String(), rating: Type.Number() }),
    Type.Null(),
  ]),
  car_at: Type.Union([LngLat, Type.Null()]),
  eta_s: Type.Union([Type.Integer(), Type.Null()]),
  distance_m: Type.Integer(),
  quote_yen: Type.Integer(),
  fare_yen: Type.Union([Type.Integer(), Type.Null()]),
  canceled_by: Type.Union([Type.Literal("rider"), Type.Literal("driver"), Type.Null()]),
  requested_ms: Type.Integer(),
  picked_up_ms: NullableMs,
  done_ms: NullableMs,
  canceled_ms: NullableMs,
  updated_ms: Type.Integer(),
  seq: Revision,
});
export type NativeTrip = Static<typeof NativeTrip>;
const TripAnswer = Type.Object({ trip: NativeTrip });

export interface NativeQuotes {
  distance_m: number;
  duration_s: number;
  quotes: { class: CarClass; label: string; seats: number; fare_yen: number; pickup_eta_s: number }[];
}

export const nativeErrorMessage = (body: unknown): string | undefined => {
  const reason = (body as { fault?: { reason?: unknown } } | null)?.fault?.reason;
  return typeof reason === "string" ? reason : undefined;
};

export interface Location {
  lat: number;
  lng: number;
}

const yen = (amount: number) => ({ amount, currency: "JPY" });
const km = (meters: number) => Math.round(meters / 100) / 10;
const location = ([lng, lat]: readonly [number, number]): Location => ({ lat, lng });
const iso = (ms: number) => new Date(ms).toISOString();
const nullableIso = (ms: number | null) => (ms === null ? null : iso(ms));
export const lngLat = (point: Location): [number, number] => [point.lng, point.lat];

export const toEstimate = (pickup: Location, dropoff: Location, native: NativeQuotes) => ({
  pickup,
  dropoff,
  distance_km: km(native.distance_m),
  duration_seconds: native.duration_s,
  options: native.quotes.map((q) => ({
    product: q.class,
    name: q.label,
    seats: q.seats,
    fare: yen(q.fare_yen),
    pickup_eta_seconds: q.pickup_eta_s,
  })),
});

const rideStatus = {
  SEARCHING: "requested",
  MATCHED: "driver_assigned",
  ARRIVING: "arriving",
  ON_TRIP: "in_progress",
  DONE: "completed",
  CANCELED: "cancelled",
} as const;

/** THE ride mapping: request, get and cancel answers, the stored copy and ride.updated events use it. */
export const toRide = (native: NativeTrip, id: string) => ({
  id,
  status: rideStatus[native.phase],
  product: native.class,
  pickup: location(native.from),
  dropoff: location(native.to),
  driver:
    native.driver === null
      ? null
      : {
          name: native.driver.name,
          vehicle: native.driver.car,
          license_plate: native.driver.plate,
          rating: native.driver.rating,
        },
  car_location: native.car_at === null ? null : location(native.car_at),
  eta_seconds: native.eta_s,
  distance_km: km(native.distance_m),
  fare_estimate: yen(native.quote_yen),
  fare: native.fare_yen === null ? null : yen(native.fare_yen),
  ride_reference: native.trip_id,
  cancelled_by:
    native.canceled_by === null ? null : native.canceled_by === "rider" ? ("caller" as const) : ("driver" as const),
  created_at: iso(native.requested_ms),
  updated_at: iso(native.updated_ms),
  picked_up_at: nullableIso(native.picked_up_ms),
  completed_at: nullableIso(native.done_ms),
  cancelled_at: nullableIso(native.canceled_ms),
});

const at = (code: string) => encodeURIComponent(code);
const pair = (point: Location) => `${point.lng},${point.lat}`;

export const company = {
  quotes: (ctx: OperationContext, pickup: Location, dropoff: Location, carClass: CarClass | undefined) =>
    ctx.upstream.request<NativeQuotes>({
      path: "/api/v2/quotes",
      query: { from: pair(pickup), to: pair(dropoff), class: carClass },
    }),
  request: (ctx: OperationContext, body: { from: [number, number]; to: [number, number]; class: CarClass }) =>
    memberCall(ctx, { answer: TripAnswer, method: "POST", path: "/api/v2/trips", body }),
  trip: (ctx: OperationContext, tripId: string) =>
    memberCall(ctx, { answer: TripAnswer, path: `/api/v2/trips/${at(tripId)}` }),
  cancel: (ctx: OperationContext, tripId: string) =>
    memberCall(ctx, { answer: TripAnswer, method: "POST", path: `/api/v2/trips/${at(tripId)}/cancel` }),
};
