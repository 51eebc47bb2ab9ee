// A failed webhook attempt is logged (at info: the receiver is the tenant's to mend), with what identifies the
// delivery and how the receiver answered, but not the endpoint's URL, which may carry a token of the tenant's; every
// attempt is counted in /metrics by outcome.
import { afterEach, expect, it } from "vitest";
import { captureLog } from "../log-capture.ts";
import { attemptsRecorded, closeAll, sendTestEvent, setupWebhooks } from "./setup.ts";

afterEach(closeAll);

it("logs a failed attempt with the delivery, the event, the account, the attempt and the receiver's status", async () => {
  const log = captureLog();
  let received = 0;
  const { gateway, receiver } = await setupWebhooks({
    answer: () => (received++ === 0 ? { status: 503 } : { status: 200 }),
    gateway: { logger: { level: "info", stream: log.stream } },
  });
  const event = await sendTestEvent(gateway);
  const delivery = await attemptsRecorded(gateway, event.id, 1);
  const logged = log.lines().filter((line) => line.msg === "webhook attempt failed");
  expect(logged).toEqual([
    expect.objectContaining({
      level: 30,
      delivery_id: delivery.id,
      event_id: event.id,
      account: "default",
      endpoint_id: expect.stringMatching(/^we_/),
      attempt: 1,
      status_code: 503,
      latency_ms: delivery.attempts[0]?.latency_ms,
    }),
  ]);
  expect(log.text()).not.toContain(new URL(receiver.url).host);

  await attemptsRecorded(gateway, (await sendTestEvent(gateway)).id, 1);
  const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
  expect(metrics.split("\n").filter((line) => line.startsWith("gateway_webhook_attempts_total"))).toEqual([
    'gateway_webhook_attempts_total{outcome="failed"} 1',
    'gateway_webhook_attempts_total{outcome="succeeded"} 1',
  ]);
});
