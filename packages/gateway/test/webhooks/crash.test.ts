// A gateway process killed with SIGKILL in the middle of a burst of deliveries loses no event: restarted on the same
// store, it delivers every event at least once (in-flight deliveries of the dead process are retried). On SQLite an
// attempt cut short by the kill is not counted: it is made again under its number, and the schedule loses no step.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { randomBase62 } from "../../src/core/ids.ts";
import { startCli } from "../cli.ts";
import { freePort, testStore } from "../harness.ts";
import { eventually } from "./fake-clock.ts";
import { type Receiver, startReceiver } from "./receiver.ts";
import type { DeliveryView } from "./setup.ts";

const postgresUrl = process.env.GATEWAY_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function storeEnv(dataDir: string): Promise<Record<string, string>> {
  if (testStore() !== "postgres") return {};
  const schema = `t_${randomBase62(12).toLowerCase()}`;
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.end();
  cleanups.push(async () => {
    const drop = new pg.Client({ connectionString: postgresUrl });
    await drop.connect();
    await drop.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await drop.end();
  });
  fs.mkdirSync(dataDir, { recursive: true });
  return { GATEWAY_DATABASE_URL: `${postgresUrl}?options=${encodeURIComponent(`-c search_path=${schema}`)}` };
}

/** Starts `gateway serve` as a child process and waits until it answers; kill() ends it with SIGKILL, as a crash would. */
async function serve(
  env: Record<string, string>,
): Promise<{ url: string; output: () => string; kill(): Promise<void> }> {
  const node = startCli(["serve"], { env });
  const kill = () => node.stop("SIGKILL");
  cleanups.push(kill);
  const url = `http://127.0.0.1:${env.PORT}`;
  await node.waitForHttp(`${url}/healthz`, 60_000);
  return { url, output: node.output, kill };
}

async function startKey(dataDir: string, output: () => string): Promise<string> {
  // Standard output is a pipe here, not a terminal: the first key is in the data directory, not in the output.
  const keyFile = path.join(dataDir, "first-api-key");
  if (!fs.existsSync(keyFile)) throw new Error(`no first key written: ${output()}`);
  return fs.readFileSync(keyFile, "utf8").trim();
}

/**
 * A first `gateway serve` on a data directory of its own (and, on PostgreSQL, a schema of its own), with the key it
 * made at its first start and a caller of platform operations with that key on any node of the same store.
 */
async function firstNode(settings: Record<string, string>) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-crash-"));
  cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const env = {
    GATEWAY_DATA_DIR: dataDir,
    PORT: String(await freePort()),
    GATEWAY_ENV: "test",
    GATEWAY_LOG_LEVEL: "error",
    GATEWAY_WEBHOOK_ALLOW_PRIVATE: "1",
    GATEWAY_WEBHOOK_POLL_INTERVAL_MS: "50",
    ...settings,
    ...(await storeEnv(dataDir)),
  };
  const node = await serve(env);
  const key = await startKey(dataDir, node.output);
  const call = (url: string, operation: string, body: object = {}) =>
    fetch(`${url}/v1/platform/${operation}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  return { env, node, call };
}

describe("a killed gateway process", () => {
  it.skipIf(testStore() === "postgres")(
    "makes an attempt cut short by SIGKILL again under its number, then retries 5 s later",
    async () => {
      let requests = 0;
      const receiver = await startReceiver(() => (++requests === 1 ? "hang" : { status: 500 }));
      cleanups.push(() => receiver.close());
      const { env, node: first, call } = await firstNode({});
      await call(first.url, "set_webhook_endpoint", { url: receiver.url, event_types: ["*"] });
      const sent = (await (await call(first.url, "send_test_event")).json()) as { data: { event: { id: string } } };
      const eventId = sent.data.event.id;
      await receiver.waitFor(1);
      await first.kill();

      const second = await serve(env);
      await receiver.waitFor(2, 30_000);
      type Listed = { data: { deliveries: DeliveryView[] } };
      const delivery = await eventually(async () => {
        const listed = (await (
          await call(second.url, "list_event_deliveries", { event_id: eventId })
        ).json()) as Listed;
        const found = listed.data.deliveries[0];
        return found?.attempts.length ? found : undefined;
      });
      expect(receiver.received.map((r) => r.headers["gateway-delivery-attempt"])).toEqual(["1", "1"]);
      expect(delivery).toMatchObject({ status: "pending", attempt_count: 1, attempts: [{ attempt: 1 }] });
      // The next time is 5 s ± 20 % from when the outcome is written: after the attempt's own latency, and after
      // the write's turn in its group (a few milliseconds, more on a busy machine).
      const attempt = delivery.attempts[0];
      const ended = Date.parse(attempt?.attempted_at ?? "") + (attempt?.latency_ms ?? 0);
      const delay = Date.parse(delivery.next_attempt_at ?? "") - ended;
      expect(delay).toBeGreaterThanOrEqual(4_000);
      expect(delay).toBeLessThanOrEqual(6_000 + 1_000);
    },
    120_000,
  );

  it("delivers every event of a burst at least once after SIGKILL and restart", async () => {
    const received = new Set<string>();
    // While the first process runs, every third request hangs: deliveries are in flight when it dies.
    let hangEveryThird = true;
    let requests = 0;
    const receiver: Receiver = await startReceiver((request) => {
      requests++;
      if (hangEveryThird && requests % 3 === 0) return "hang";
      received.add(String(request.headers["gateway-event-id"]));
      return { status: 200 };
    });
    cleanups.push(() => receiver.close());

    const {
      env,
      node: first,
      call,
    } = await firstNode({
      GATEWAY_WEBHOOK_TIMEOUT_MS: "1500",
      GATEWAY_WEBHOOK_LEASE_MS: "2000",
      GATEWAY_WEBHOOK_CONCURRENCY: "8",
      GATEWAY_RATE_LIMIT_PER_MINUTE: "1000000",
      GATEWAY_RATE_LIMIT_BURST: "100000",
    });
    expect((await call(first.url, "set_webhook_endpoint", { url: receiver.url, event_types: ["*"] })).status).toBe(200);

    const sent = await Promise.all(
      Array.from({ length: 40 }, async () => {
        const response = await call(first.url, "send_test_event");
        return ((await response.json()) as { data: { event: { id: string } } }).data.event.id;
      }),
    );
    await eventually(() => (received.size >= 5 ? true : undefined));
    await first.kill();
    expect(received.size).toBeLessThan(sent.length);

    hangEveryThird = false;
    await serve(env);
    await eventually(() => (sent.every((id) => received.has(id)) ? true : undefined), 30_000);
    expect(sent.filter((id) => !received.has(id))).toEqual([]);
  }, 120_000);
});
