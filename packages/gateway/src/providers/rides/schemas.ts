// The rides provider's API objects and input fields: a location, a fare estimate per product, and the ride (the
// driver, the car's position and ETA as they move, the estimated and final fare in JPY, timestamps in UTC).
import { Type } from "@sinclair/typebox";
import { Money, Nullable, StrictObject } from "../schemas.ts";

const Utc = (description: string) => Type.String({ format: "date-time", description: `${description} (UTC).` });
const oneOf = <T extends string>(values: readonly T[], description: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { description },
  );

/** A point in input: WGS 84 degrees. */
export const LocationInput = StrictObject({
  lat: Type.Number({ minimum: -90, maximum: 90, description: "Latitude, WGS 84 degrees." }),
  lng: Type.Number({ minimum: -180, maximum: 180, description: "Longitude, WGS 84 degrees." }),
});
export const Location = Type.Object(
  { lat: Type.Number(), lng: Type.Number() },
  { additionalProperties: false, description: "WGS 84 degrees." },
);

export const products = ["standard", "premium", "van"] as const;
/** One string schema with an enum (not a union of constants), so that a wrong value is one clear problem. */
export const ProductInput = Type.Unsafe<(typeof products)[number]>({
  type: "string",
  enum: [...products],
  description: "standard (taxi, 4 seats), premium (hired car, 3 seats) or van (9 seats).",
});

/** Resource ids are matched exactly: anything not issued to the caller's account is 404, malformed or not. */
export const RideId = Type.String({ minLength: 1, maxLength: 64, description: "The ride id request_ride returned." });

export const Estimate = Type.Object(
  {
    pickup: Location,
    dropoff: Location,
    distance_km: Type.Number({ description: "By road." }),
    duration_seconds: Type.Integer({ description: "Driving time from pickup to drop-off." }),
    options: Type.Array(
      Type.Object(
        {
          product: oneOf(products, "What to pass to request_ride."),
          name: Type.String({ description: "The company's name for it, in Japanese." }),
          seats: Type.Integer(),
          fare: Money,
          pickup_eta_seconds: Type.Integer({ description: "How long a car usually takes to reach the pickup." }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const rideStatuses = [
  "requested",
  "driver_assigned",
  "arriving",
  "in_progress",
  "completed",
  "cancelled",
] as const;

export const Ride = Type.Object(
  {
    id: Type.String({ description: "`ride_` + 22 characters." }),
    status: oneOf(
      rideStatuses,
      "requested → driver_assigned → arriving → in_progress → completed, or cancelled (ride.updated at every change).",
    ),
    product: oneOf(products, "The car class."),
    pickup: Location,
    dropoff: Location,
    driver: Nullable(
      Type.Object(
        {
          name: Type.String(),
          vehicle: Type.String({ description: "Make and model." }),
          license_plate: Type.String(),
          rating: Type.Number({ description: "1 to 5." }),
        },
        { additionalProperties: false, description: "Once a driver is assigned." },
      ),
    ),
    car_location: Nullable(Location),
    eta_seconds: Nullable(
      Type.Integer({
        description:
          "Seconds until the car reaches the pickup (driver_assigned, arriving) or the drop-off (in_progress).",
      }),
    ),
    distance_km: Type.Number({ description: "Pickup to drop-off, by road." }),
    fare_estimate: Money,
    fare: Nullable(Money),
    ride_reference: Type.String({ description: "The company's own trip number." }),
    cancelled_by: Nullable(oneOf(["caller", "driver"], "Who cancelled; null unless cancelled.")),
    created_at: Utc("When it was requested"),
    updated_at: Utc("Last change, the car's moves included"),
    picked_up_at: Nullable(Utc("When the rider boarded")),
    completed_at: Nullable(Utc("When the rider was dropped off")),
    cancelled_at: Nullable(Utc("When it was cancelled")),
  },
  { additionalProperties: false },
);

const yen = (amount: number) => ({ amount, currency: "JPY" });
/** Tokyo Station (Marunouchi side) and Shibuya Station. */
export const exampleTrip = {
  pickup: { lat: 35.681236, lng: 139.767125 },
  dropoff: { lat: 35.658034, lng: 139.701636 },
};

export const exampleRide = {
  id: "ride_3Jd8Kq1XwP5mZr7Tb2Hn4V",
  status: "driver_assigned" as const,
  product: "standard" as const,
  ...exampleTrip,
  driver: { name: "佐々木 誠", vehicle: "トヨタ JPN TAXI (黒)", license_plate: "品川 500 あ 12-34", rating: 4.8 },
  car_location: { lat: 35.69102, lng: 139.77481 },
  eta_seconds: 240,
  distance_km: 8.4,
  fare_estimate: yen(3400),
  fare: null,
  ride_reference: "MT-8QK2ZT4H",
  cancelled_by: null,
  created_at: "2027-12-01T03:15:00.000Z",
  updated_at: "2027-12-01T03:15:02.000Z",
  picked_up_at: null,
  completed_at: null,
  cancelled_at: null,
};
