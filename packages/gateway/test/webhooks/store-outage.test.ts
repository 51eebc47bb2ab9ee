// The delivery worker while the store cannot be read (here its deliveries table is gone for a moment, as in an outage):
// the failure is logged once however many polls fail, and the recovery once, with how many polls failed; deliveries
// go on afterwards.
import { Writable } from "node:stream";
import { sql } from "kysely";
import { afterAll, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../harness.ts";
import { eventually } from "./fake-clock.ts";

let t: TestGateway | undefined;
afterAll(async () => t?.close());

it("logs a failing poll once, then its recovery once", async () => {
  const lines: { msg: string; failed_polls?: number }[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  t = await startTestGateway({ logger: { level: "info", stream }, env: { GATEWAY_WEBHOOK_POLL_INTERVAL_MS: "20" } });
  const { db } = t.gateway.core.store;
  const about = () => lines.filter((line) => line.msg.startsWith("claiming webhook deliveries"));
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
