// The delivery worker while the store cannot be read (here its deliveries table is gone for a moment, as in an outage):
// the failure is logged once however many polls fail, and the recovery once, with how many polls failed; deliveries
// go on afterwards. A claim whose event cannot be read is handed back at once, not held for its lease.
import { sql } from "kysely";
import { afterAll, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../harness.ts";
import { captureLog } from "../log-capture.ts";
import { eventually } from "./fake-clock.ts";
import { attemptsRecorded, closeAll, sendTestEvent, setupWebhooks } from "./setup.ts";

let t: TestGateway | undefined;
afterAll(async () => t?.close());
afterAll(closeAll);

it("logs a failing poll once, then its recovery once", async () => {
  const log = captureLog();
  t = await startTestGateway({
    logger: { level: "info", stream: log.stream },
    env: { GATEWAY_WEBHOOK_POLL_INTERVAL_MS: "20" },
  });
  const { db } = t.gateway.core.store;
  const about = () => log.lines().filter((line) => line.msg.startsWith("claiming webhook deliveries"));
  await sql`alter table webhook_deliveries rename to webhook_deliveries_away`.execute(db);
  try {
    // Many polls fail meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 500));
  } finally {
    await sql`alter table webhook_deliveries_away rename to webhook_deliveries`.execute(db);
  }
  const recovered = await eventually(() => about().find((line) => line.msg.endsWith("works again")));
  expect(about().map((line) => line.msg)).toEqual([
    "claiming webhook deliveries failed",
    "claiming webhook deliveries works again",
  ]);
  expect(recovered.failed_polls).toBeGreaterThan(3);
});

it("hands a claim back when its event cannot be read, so the delivery is not held for the lease", async () => {
  let status = 500;
  const setup = await setupWebhooks({ answer: () => ({ status }) });
  const event = await sendTestEvent(setup.gateway);
  const { next_attempt_at } = await attemptsRecorded(setup.gateway, event.id, 1);
  const { db } = setup.gateway.gateway.core.store;
  await sql`alter table events rename to events_away`.execute(db);
  try {
    // The retry falls due: the worker claims it, and the event's body cannot be read.
    setup.clock.set(Date.parse(next_attempt_at ?? ""));
    await new Promise((resolve) => setTimeout(resolve, 300));
  } finally {
    await sql`alter table events_away rename to events`.execute(db);
  }
  status = 200;
  // The clock stands still: a claim kept would wait for its lease (60 s) to run out.
  const [, second] = await setup.receiver.waitFor(2, 3000);
  expect(second?.headers).toMatchObject({ "gateway-event-id": event.id, "gateway-delivery-attempt": "2" });
});
