// The public rides operation (API key only): estimate a ride's fare, distance and duration by product. Read-only:
// safe to repeat without an Idempotency-Key.
import { Type } from "@sinclair/typebox";
import { StrictObject } from "../schemas.ts";
import { defineOperation } from "../types.ts";
import { company, toEstimate } from "./adapter.ts";
import { Estimate, exampleTrip, LocationInput, ProductInput } from "./schemas.ts";

const yen = (amount: number) => ({ amount, currency: "JPY" });

export const estimateRide = defineOperation({
  id: "estimate_ride",
  summary: "Estimate a ride",
  description:
    "Fare, distance and duration from pickup to drop-off for each product (or the one asked for), and how soon a car " +
    "usually arrives. Read-only: safe to repeat without an Idempotency-Key. A point outside Tokyo's 23 wards, or a " +
    "trip under 200 m, is 422 provider_rejected.",
  auth: "none",
  readOnly: true,
  input: StrictObject({ pickup: LocationInput, dropoff: LocationInput, product: Type.Optional(ProductInput) }),
  output: Estimate,
  example: {
    input: { ...exampleTrip, product: "standard" },
    output: {
      ...exampleTrip,
      distance_km: 8.4,
      duration_seconds: 1678,
      options: [{ product: "standard" as const, name: "タクシー", seats: 4, fare: yen(3400), pickup_eta_seconds: 240 }],
    },
  },
  async handle(input, ctx) {
    const native = await company.quotes(ctx, input.pickup, input.dropoff, input.product);
    return { data: toEstimate(input.pickup, input.dropoff, native) };
  },
});
