// The store fails while an idempotent request runs: its answer goes out, and the claim stays held (renewed) while the
// answer is stored again, so a retry under the same key gets the stored answer once the store is back, and never
// runs the operation a second time. The failure is real: another session locks the records' table against writes,
// and the gateway's statements time out (GATEWAY_DATABASE_TIMEOUT_MS), on the server too.
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../../test/harness.ts";
import { createTestkit } from "./testkit.ts";

const kit = createTestkit();
let t: TestGateway;
let locker: pg.Client;

beforeAll(async () => {
  t = await startTestGateway({
    providers: kit.providers,
    env: { GATEWAY_DATABASE_TIMEOUT_MS: "400", GATEWAY_IDEMPOTENCY_WAIT_MS: "5000" },
  });
  locker = new pg.Client(t.config.databaseUrl);
  await locker.connect();
});
afterAll(async () => {
  await locker?.end();
  await t?.close();
});

const send = (key: string) =>
  fetch(`${t.url}/v1/testkit/gate`, {
    method: "POST",
    headers: { authorization: `Bearer ${t.key}`, "content-type": "application/json", "idempotency-key": key },
    body: '{"value":"blip"}',
  });

it("a retry after the store failed to take the answer gets that answer, and the operation runs once", async () => {
  const schema = (t.gateway as unknown as { storeSchema: string }).storeSchema;
  kit.gate.reset();
  const key = `store-failure-${Date.now()}`;
  const first = send(key);
  await kit.gate.entered;
  const executions = kit.executions.get("gate");
  await locker.query("BEGIN");
  await locker.query(`LOCK TABLE ${schema}.idempotency_keys IN EXCLUSIVE MODE`);
  kit.gate.open();
  const answer = await first;
  const bytes = await answer.text();
  expect(answer.status).toBe(200);
  expect(answer.headers.get("idempotent-replayed")).toBeNull();
  // The store is back a second later: longer than the statements' timeout, shorter than the claim's lease.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  await locker.query("ROLLBACK");

  const retry = await send(key);
  expect(retry.status).toBe(200);
  expect(retry.headers.get("idempotent-replayed")).toBe("true");
  expect(await retry.text()).toBe(bytes);
  expect(kit.executions.get("gate")).toBe(executions);
});

it("a statement the gateway stopped waiting for is not committed once the lock it waited on is released", async () => {
  const schema = (t.gateway as unknown as { storeSchema: string }).storeSchema;
  await locker.query("BEGIN");
  await locker.query(`LOCK TABLE ${schema}.accounts IN EXCLUSIVE MODE`);
  const failed = await t.gateway.core.accounts.ensure("acct_late").then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(failed).toBeInstanceOf(Error);
  await locker.query("ROLLBACK");
  await new Promise((resolve) => setTimeout(resolve, 300));
  const rows = await locker.query(`SELECT id FROM ${schema}.accounts WHERE id = 'acct_late'`);
  expect(rows.rows).toEqual([]);
});
