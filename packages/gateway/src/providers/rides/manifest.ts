// The rides provider (taxi dispatch) over the "みやこ交通" dispatch API: estimates with the API key alone, rides for a
// connected rider. The car's progress arrives as hooks (trip.updated) and becomes ride.updated events.
import { defineProvider } from "../types.ts";
import { nativeErrorMessage } from "./adapter.ts";
import { estimateRide } from "./estimate.ts";
import { rides } from "./kinds.ts";
import { cancelRide, getRide, requestRide } from "./rides.ts";

export const ridesProvider = defineProvider({
  id: "rides",
  title: "Miyako Taxi",
  description:
    "Taxis and hired cars in Tokyo from みやこ交通: fare estimates, rides followed from request to drop-off.",
  sandbox: "rides",
  upstreamErrorMessage: nativeErrorMessage,
  oauth: { scopes: ["trips"] },
  operations: [estimateRide, requestRide, getRide, cancelRide],
  async handleHook(event, ctx) {
    if (event.type !== "trip.updated") return {}; // acknowledged, so that the company does not retry it
    return rides.fromHook(ctx, event.data.trip);
  },
});
