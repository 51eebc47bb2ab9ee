// Test setup for connections: a shopping sandbox of the test's own (so that the test owns its clock and token
// lifetime), a gateway pointed at it, and the connect flow driven like a browser.
import { createShoppingSandbox, type ShoppingSandboxOptions } from "@provider-gateway/sandbox";
import { runConnectFlow } from "../../src/cli/connect-flow.ts";
import type { FormBrowser } from "../../src/cli/form-browser.ts";
import { startTestGateway, type TestGateway, type TestGatewayOptions } from "../harness.ts";
import { FakeClock } from "../webhooks/fake-clock.ts";

export interface ShoppingSetup {
  t: TestGateway;
  clock: FakeClock;
  sandbox: ReturnType<typeof createShoppingSandbox>;
  sandboxUrl: string;
  close(): Promise<void>;
}

/** A fixed start (prices are a function of the clock, so tests can compute them). */
export const T0 = Date.UTC(2026, 10, 21, 0, 0, 0);

/** Generous limits: these tests make many calls with one key under a clock that does not move by itself. */
const unlimited = { GATEWAY_RATE_LIMIT_PER_MINUTE: "1000000", GATEWAY_RATE_LIMIT_BURST: "100000" };

export async function startShopping(
  options: { sandbox?: Omit<ShoppingSandboxOptions, "now">; gateway?: TestGatewayOptions; clock?: FakeClock } = {},
): Promise<ShoppingSetup> {
  const clock = options.clock ?? new FakeClock(T0);
  const sandbox = createShoppingSandbox({ ...options.sandbox, now: () => clock.now() });
  const sandboxUrl = await sandbox.app.listen({ host: "127.0.0.1", port: 0 });
  const t = await startTestGateway({
    clock,
    ...options.gateway,
    env: { ...unlimited, GATEWAY_UPSTREAM_SHOPPING_URL: sandboxUrl, ...options.gateway?.env },
  });
  return {
    t,
    clock,
    sandbox,
    sandboxUrl,
    async close() {
      await t.close();
      await sandbox.app.close();
    },
  };
}

export async function createSession(t: TestGateway, externalRef: string, key = t.key) {
  const response = await fetch(`${t.url}/v1/platform/create_connect_session`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ provider_id: "shopping", external_ref: externalRef }),
  });
  const body = (await response.json()) as any;
  if (response.status !== 200) throw new Error(`create_connect_session: ${JSON.stringify(body)}`);
  return body.data as { token: string; connect_url: string; expires_at: string };
}

/** Creates a session, runs the flow as `username`, and answers the new connection (via list_connections). */
export async function connect(
  t: TestGateway,
  externalRef: string,
  options: { username?: string; key?: string; browser?: FormBrowser } = {},
) {
  const session = await createSession(t, externalRef, options.key);
  const username = options.username ?? "demo";
  const flow = await runConnectFlow({
    connectUrl: session.connect_url,
    username,
    password: username,
    ...(options.browser && { browser: options.browser }),
  });
  if (!flow.ok) throw new Error(`connect flow failed: ${flow.page.status} ${flow.message}`);
  const listed = await fetch(`${t.url}/v1/platform/list_connections`, {
    method: "POST",
    headers: { authorization: `Bearer ${options.key ?? t.key}`, "content-type": "application/json" },
    body: JSON.stringify({ external_ref: externalRef, provider_id: "shopping" }),
  });
  const body = (await listed.json()) as any;
  const connection = body.data.connections[0];
  if (!connection) throw new Error("no connection after a successful flow");
  return { connection, flow, session };
}

/** Calls a shopping operation with a connection. */
export function shopping(
  t: TestGateway,
  operation: string,
  connectionId: string,
  body: unknown = {},
  key = t.key,
  headers: Record<string, string> = {},
) {
  return fetch(`${t.url}/v1/shopping/${operation}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      "x-gateway-connection-id": connectionId,
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** POST to a platform operation with a key (default: the test gateway's). */
export async function platform(t: TestGateway, operation: string, body: unknown = {}, key = t.key) {
  const response = await fetch(`${t.url}/v1/platform/${operation}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** The raw row of a connection, straight from the store. */
export const rawConnection = (t: TestGateway, id: string) =>
  t.gateway.core.store.db.selectFrom("connections").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

/** Events of a type recorded for the default account, oldest first. */
export async function eventsOf(t: TestGateway, type: string) {
  const { body } = await platform(t, "list_events", { type, limit: 100 });
  return (body.data.events as any[]).reverse();
}
