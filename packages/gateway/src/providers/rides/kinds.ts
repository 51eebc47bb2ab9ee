// The rides provider's stateful resource (providers/stateful): rides, the caller's one action on them (cancel before
// boarding), and the event every change causes (the car's moves included).
import { isDeepStrictEqual } from "node:util";
import { defineStatefulResource } from "../stateful/resource.ts";
import { company, NativeTrip, toRide } from "./adapter.ts";
import { Ride } from "./schemas.ts";

export const rides = defineStatefulResource({
  kind: "ride",
  native: NativeTrip,
  schema: Ride,
  idPrefix: "ride",
  upstreamId: (native: NativeTrip) => native.trip_id,
  revision: (native: NativeTrip) => native.seq,
  fetch: async (ctx, tripId) => (await company.trip(ctx, tripId)).trip,
  toObject: toRide,
  // Once the rider is aboard the ride cannot be cancelled; a finished ride is over.
  transitions: {
    requested: ["cancelled"],
    driver_assigned: ["cancelled"],
    arriving: ["cancelled"],
    in_progress: [],
    completed: [],
    cancelled: [],
  },
  events: (before, after) => (isDeepStrictEqual(before, after) ? [] : ["ride.updated"]),
});
