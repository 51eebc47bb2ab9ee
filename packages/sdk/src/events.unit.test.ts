// The event union narrows data.object on `type`; the checks that matter here are the compiler's (npm run typecheck).
import { describe, expect, expectTypeOf, it } from "vitest";
import { WEBHOOK_EVENT_TYPES, type WebhookEvent, type WebhookEventOf } from "./events.ts";
import type { PlatformGetConnectionOutput, ShoppingWatchPriceOutput } from "./operations.generated.ts";

function describeEvent(event: WebhookEvent): string {
  switch (event.type) {
    case "reservation.confirmed":
    case "reservation.cancelled": {
      const { restaurant_id, party_size, starts_at, status } = event.data.object;
      return `${status} ${restaurant_id} ${starts_at} ×${party_size satisfies number}`;
    }
    case "order.updated":
      return `order ${String(event.data.object.status)}`;
    default:
      return event.type;
  }
}

describe("event types", () => {
  it("lists every event type the gateway emits plus test.event, each once", () => {
    expect(new Set(WEBHOOK_EVENT_TYPES).size).toBe(WEBHOOK_EVENT_TYPES.length);
    expect(WEBHOOK_EVENT_TYPES).toContain("payment.declined");
    expect(WEBHOOK_EVENT_TYPES).toContain("test.event");
    expect(WEBHOOK_EVENT_TYPES).toHaveLength(12);
  });

  it("narrows data.object by type", () => {
    const event: WebhookEventOf<"reservation.confirmed"> = {
      id: "evt_1",
      type: "reservation.confirmed",
      created_at: "2026-01-01T00:00:00Z",
      data: {
        // A reservation as dining:get_reservation returns it (the event carries exactly that resource).
        object: {
          id: "rsv_1",
          status: "confirmed",
          restaurant_id: "rst_instant",
          slot_id: "slot_1",
          starts_at: "2026-01-10T19:00:00+09:00",
          party_size: 4,
          contact_name: "Hanako Yamada",
          booking_reference: "TT-1234",
          cancellation_deadline: "2026-01-09T19:00:00+09:00",
          cancelled_by: null,
          created_at: "2026-01-01T00:00:00Z",
          updated_at: "2026-01-01T00:00:00Z",
          confirmed_at: "2026-01-01T00:00:00Z",
          cancelled_at: null,
        },
      },
    };
    expect(describeEvent(event)).toBe("confirmed rst_instant 2026-01-10T19:00:00+09:00 ×4");
  });
});

describe("generated event objects", () => {
  it("type data.object as the resource its operation returns, where that operation exists", () => {
    expectTypeOf<WebhookEventOf<"connection.created">["data"]["object"]>().toEqualTypeOf<
      PlatformGetConnectionOutput["connection"]
    >();
    expectTypeOf<WebhookEventOf<"price_watch.triggered">["data"]["object"]>().toEqualTypeOf<
      ShoppingWatchPriceOutput["watch"]
    >();
    expectTypeOf<WebhookEventOf<"test.event">["data"]["object"]>().toEqualTypeOf<Record<string, unknown>>();
  });
});
