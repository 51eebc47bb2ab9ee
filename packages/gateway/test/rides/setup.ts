// Test setup for the rides provider: a rides sandbox of the test file's own whose cars move only when the test says
// so (tick null) unless a test sets a pace, on the shared stateful-provider setup.
import { createRidesSandbox } from "@provider-gateway/sandbox";
import { expect } from "vitest";
import type { TestGatewayOptions } from "../harness.ts";
import {
  callOperation,
  type ProviderSetup,
  sandboxControl,
  startStatefulProvider,
} from "../stateful/provider-setup.ts";

export async function startRides(options: { gateway?: Omit<TestGatewayOptions, "env"> } = {}) {
  return startStatefulProvider({
    providerId: "rides",
    ...(options.gateway && { gateway: options.gateway }),
    async sandbox(hooks) {
      const sandbox = createRidesSandbox({ hooks, tickMs: null });
      const url = await sandbox.app.listen({ host: "127.0.0.1", port: 0 });
      return { url, close: () => sandbox.app.close() };
    },
  });
}

export const tokyoStation = { lat: 35.681236, lng: 139.767125 };
export const shibuyaStation = { lat: 35.658034, lng: 139.701636 };
export const yokohamaStation = { lat: 35.465798, lng: 139.622314 };

export async function requestRide(s: ProviderSetup, extra: Record<string, unknown> = {}) {
  const created = await callOperation(s, "request_ride", { pickup: tokyoStation, dropoff: shibuyaStation, ...extra });
  expect(created.status, created.text).toBe(200);
  return created.body.data;
}

export async function getRide(s: ProviderSetup, id: string) {
  const read = await callOperation(s, "get_ride", { ride_id: id });
  expect(read.status, read.text).toBe(200);
  return read.body.data;
}

/** What the cars do (/_sandbox/dispatch/{action} with the company's trip number): advance, or the driver cancels. */
export const dispatch = async (s: ProviderSetup, action: "advance" | "cancel", ride: { ride_reference: string }) =>
  (await sandboxControl(s, `dispatch/${action}`, { trip_id: ride.ride_reference })).trip;

/** The cars' pace: milliseconds per step, or null (only the advance control moves rides). */
export const pace = (s: ProviderSetup, tickMs: number | null) =>
  sandboxControl(s, "dispatch/settings", { tick_ms: tickMs });
