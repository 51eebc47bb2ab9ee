// The webhook retry schedule on a fake clock: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h between attempts (±20 %), a last
// attempt exactly 24 h after the event was created, then `failed`.
import { afterEach, describe, expect, it } from "vitest";
import { attemptsRecorded, closeAll, deliveriesOf, nextAttempt, sendTestEvent, setupWebhooks } from "./setup.ts";

afterEach(closeAll);

const delays = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000];
const day = 24 * 3600 * 1000;

describe("webhook retry schedule", () => {
  it("follows the schedule with jitter, ends with an attempt at 24 h, then fails", async () => {
    const setup = await setupWebhooks({ answer: () => ({ status: 503 }) });
    const created = setup.clock.now();
    const event = await sendTestEvent(setup.gateway);
    let delivery = await attemptsRecorded(setup.gateway, event.id, 1);
    while (delivery.status === "pending") delivery = await nextAttempt(setup, event.id);

    const times = delivery.attempts.map((a) => Date.parse(a.attempted_at));
    expect(times).toHaveLength(8);
    expect(times[0]).toBe(created);
    for (const [index, delay] of delays.entries()) {
      const gap = (times[index + 1] ?? 0) - (times[index] ?? 0);
      expect(gap).toBeGreaterThanOrEqual(delay * 0.8);
      expect(gap).toBeLessThanOrEqual(delay * 1.2);
    }
    expect(times[7]).toBe(created + day);
    expect(delivery).toMatchObject({
      status: "failed",
      next_attempt_at: null,
      deadline_at: new Date(created + day).toISOString(),
    });
    expect(setup.receiver.received.map((r) => r.headers["gateway-delivery-attempt"])).toEqual([
      "1",
      "2",
      "3",
      "4",
      "5",
      "6",
      "7",
      "8",
    ]);

    // Nothing more after failing, however long the clock runs.
    setup.clock.advance(7 * day);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await deliveriesOf(setup.gateway, event.id))[0]?.attempts).toHaveLength(8);
    expect(setup.receiver.received).toHaveLength(8);
  });

  it("a worker that was down past 24 h makes one last attempt and then fails", async () => {
    const setup = await setupWebhooks({ answer: () => ({ status: 500 }) });
    const event = await sendTestEvent(setup.gateway);
    await attemptsRecorded(setup.gateway, event.id, 1);
    setup.clock.advance(30 * 3600 * 1000);
    const delivery = await attemptsRecorded(setup.gateway, event.id, 2);
    expect(delivery.status).toBe("failed");
  });
});
