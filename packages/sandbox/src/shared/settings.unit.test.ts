// The pace settings of the sandboxes that move by themselves: 0 is a pace (every step at once), null is manual mode,
// and neither is read as the other; anything else is refused in the upstream's own error format.
import { describe, expect, it } from "vitest";
import { createDeliverySandbox } from "../delivery/server.ts";
import { createDiningSandbox } from "../dining/server.ts";
import { createPaymentsSandbox } from "../payments/server.ts";
import { createRidesSandbox } from "../rides/server.ts";

const paced = [
  ["delivery", () => createDeliverySandbox().app, "/_sandbox/kitchen/settings", "tick_ms"],
  ["rides", () => createRidesSandbox().app, "/_sandbox/dispatch/settings", "tick_ms"],
  ["payments", () => createPaymentsSandbox().app, "/_sandbox/network/settings", "tick_ms"],
  ["dining", () => createDiningSandbox().app, "/_sandbox/venue/settings", "queue_call_ms"],
] as const;

describe.each(paced)("%s's pace setting", (_name, create, url, field) => {
  it("takes 0 as 0, null as null, a whole number as itself, and refuses a negative or a fraction", async () => {
    const app = create();
    try {
      const set = async (value: unknown) => {
        const response = await app.inject({ method: "POST", url, payload: { [field]: value } });
        return { status: response.statusCode, value: response.json()[field] };
      };
      expect(await set(0)).toEqual({ status: 200, value: 0 });
      expect(await set(null)).toEqual({ status: 200, value: null });
      expect(await set(1500)).toEqual({ status: 200, value: 1500 });
      expect((await set(-1)).status).toBe(400);
      expect((await set(1.5)).status).toBe(400);
    } finally {
      await app.close();
    }
  });
});
