// Ride operations (a connected rider's account): request, get, cancel. The gateway keeps a copy of each ride
// (kinds.ts), so an id of another account is 404 without asking the company; the car's progress arrives as hooks
// and becomes ride.updated events.
import { Type } from "@sinclair/typebox";
import { StrictObject } from "../schemas.ts";
import { defineOperation } from "../types.ts";
import { company, lngLat } from "./adapter.ts";
import { rides } from "./kinds.ts";
import { exampleRide, exampleTrip, LocationInput, ProductInput, Ride, RideId } from "./schemas.ts";

const RideInput = StrictObject({ ride_id: RideId });
const exampleId = { ride_id: exampleRide.id };
const requested = {
  ...exampleRide,
  status: "requested" as const,
  driver: null,
  car_location: null,
  eta_seconds: null,
  updated_at: exampleRide.created_at,
};

export const requestRide = defineOperation({
  id: "request_ride",
  summary: "Request a ride",
  description:
    "Sends a car (status `requested`). A driver is assigned, drives to the pickup (`driver_assigned`, then " +
    "`arriving`), takes the rider (`in_progress`) and drops them off (`completed`); each change, the car's moves " +
    "included, is a ride.updated event. `product` defaults to standard. Send an Idempotency-Key to retry safely.",
  auth: "credentials",
  input: StrictObject({ pickup: LocationInput, dropoff: LocationInput, product: Type.Optional(ProductInput) }),
  output: Ride,
  example: { input: { ...exampleTrip, product: "standard" }, output: requested },
  async handle(input, ctx) {
    const { trip } = await company.request(ctx, {
      from: lngLat(input.pickup),
      to: lngLat(input.dropoff),
      class: input.product ?? "standard",
    });
    return { data: await rides.created(ctx, trip) };
  },
});

export const getRide = defineOperation({
  id: "get_ride",
  summary: "Read a ride",
  description: "The ride as the company has it now: status, driver, the car's position and ETA.",
  auth: "credentials",
  readOnly: true,
  input: RideInput,
  output: Ride,
  example: { input: exampleId, output: exampleRide },
  async handle(input, ctx) {
    const data = await rides.refresh(ctx, input.ride_id);
    return { data };
  },
});

export const cancelRide = defineOperation({
  id: "cancel_ride",
  summary: "Cancel a ride",
  description:
    "Cancels a ride before the rider boards (event ride.updated). Cancelling a ride in progress, completed or " +
    "already cancelled is 409 conflict.",
  auth: "credentials",
  input: RideInput,
  output: Ride,
  example: {
    input: exampleId,
    output: {
      ...exampleRide,
      status: "cancelled" as const,
      eta_seconds: null,
      cancelled_by: "caller" as const,
      updated_at: "2027-12-01T03:16:00.000Z",
      cancelled_at: "2027-12-01T03:16:00.000Z",
    },
  },
  async handle(input, ctx) {
    const data = await rides.transition(ctx, input.ride_id, "cancelled", async (tripId) => {
      return (await company.cancel(ctx, tripId)).trip;
    });
    return { data };
  },
});
