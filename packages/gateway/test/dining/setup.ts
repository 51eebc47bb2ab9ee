// Test setup for the dining provider: a dining sandbox of the test file's own (its venue delays set by the test),
// pushing hooks to a real gateway, a real webhook receiver whose deliveries are verified with the SDK, and diners
// connected through the real OAuth connect flow (the shared steps are in ../stateful/provider-setup.ts).
import { createDiningSandbox } from "@provider-gateway/sandbox";
import { expect } from "vitest";
import type { TestGateway, TestGatewayOptions } from "../harness.ts";
import {
  type Answer,
  answer,
  type CallOptions,
  callOperation,
  connectUser,
  type ProviderSetup,
  sandboxControl,
  startStatefulProvider,
} from "../stateful/provider-setup.ts";

export { type Answer, delivered, deliveredTypes, untilStatus } from "../stateful/provider-setup.ts";

export interface DiningSetup extends ProviderSetup {
  /** While held, the venue's hooks find nothing listening and are retried later (as when they are slow to arrive). */
  holdHooks(held: boolean): void;
}

export async function startDining(options: { gateway?: Omit<TestGatewayOptions, "env"> } = {}): Promise<DiningSetup> {
  let held = false;
  const setup = await startStatefulProvider({
    providerId: "dining",
    ...(options.gateway && { gateway: options.gateway }),
    async sandbox(hooks) {
      // Port 9 (discard) on loopback: refused at once, so the hook is retried on the sandbox's schedule.
      const url = () => (held ? "http://127.0.0.1:9/hooks/dining" : hooks.url());
      const sandbox = createDiningSandbox({
        hooks: { ...hooks, url },
        venueDelayMs: 100,
        queueCallMs: null,
        queueHoldMs: 600_000,
      });
      return { url: await sandbox.app.listen({ host: "127.0.0.1", port: 0 }), close: () => sandbox.app.close() };
    },
  });
  return { ...setup, holdHooks: (hold) => (held = hold) };
}

/** Connects a diner of the sandbox (`demo` or `demo2`) through the hosted connect flow; answers the connection id. */
export const connectDiner = (t: TestGateway, externalRef: string, username = "demo", key = t.key) =>
  connectUser(t, "dining", externalRef, username, key);

/** POST /v1/dining/{operation} as the diner (another connection or key when given). */
export const dining = (
  s: ProviderSetup,
  operation: string,
  body: unknown,
  options: CallOptions = {},
): Promise<Answer> => callOperation(s, operation, body, options);

/** A resource alias: POST/GET/DELETE /v1/dining/reservations[/{id}]. */
export async function alias(
  s: ProviderSetup,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${s.t.url}/v1/dining${path}`, {
    method,
    headers: {
      authorization: `Bearer ${s.t.key}`,
      "x-gateway-connection-id": s.connectionId,
      ...(body !== undefined && { "content-type": "application/json" }),
      ...headers,
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return answer(response);
}

/** What the venue does by itself (/_sandbox/venue/{action}): confirm, cancel, call, seat, expire, settings. */
export const venue = (s: ProviderSetup, action: string, body: Record<string, unknown>) =>
  sandboxControl(s, `venue/${action}`, body);

/** "YYYY-MM-DD" in Tokyo, `days` from today. */
export const tokyoDay = (days: number) =>
  new Date(Date.now() + 9 * 3600_000 + days * 86_400_000).toISOString().slice(0, 10);

/** The first free slot of the restaurant for the party, from a week ahead on. */
export async function freeSlot(s: ProviderSetup, restaurantId: string, partySize = 2) {
  for (let days = 7; days < 60; days++) {
    const listed = await dining(s, "list_slots", {
      restaurant_id: restaurantId,
      date: tokyoDay(days),
      party_size: partySize,
    });
    expect(listed.status, listed.text).toBe(200);
    if (listed.body.data.slots.length > 0) return listed.body.data.slots[0] as { id: string; starts_at: string };
  }
  throw new Error(`no free slot at ${restaurantId}`);
}
