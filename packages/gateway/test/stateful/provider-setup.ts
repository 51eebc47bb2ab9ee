// Test setup shared by the stateful providers (dining, delivery, rides, payments): the provider's sandbox of the test
// file's own, pushing hooks to a real gateway; a real webhook receiver whose deliveries are verified with the SDK; a
// user of the sandbox connected through the real OAuth connect flow; calls and sandbox controls. The event checks
// are in delivered-events.ts, re-exported here.
import type { SandboxHooks } from "@provider-gateway/sandbox";
import { expect } from "vitest";
import { runConnectFlow } from "../../src/cli/connect-flow.ts";
import { platform } from "../connections/setup.ts";
import { startTestGateway, type TestGateway, type TestGatewayOptions } from "../harness.ts";
import { eventually } from "../webhooks/fake-clock.ts";
import { type Receiver, startReceiver } from "../webhooks/receiver.ts";
import { fastWorker, setEndpoint } from "../webhooks/setup.ts";

export { type DeliveredEvent, delivered, deliveredTypes, receivedAbout, verifiedEvent } from "./delivered-events.ts";

export interface ProviderSetup {
  providerId: string;
  t: TestGateway;
  sandboxUrl: string;
  receiver: Receiver;
  webhookSecret: string;
  /** The `demo` user's connection on the default account. */
  connectionId: string;
  close(): Promise<void>;
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface StartedSandbox {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts the sandbox (given where to push hooks), a receiver, and a gateway pointed at both; connects `demo`.
 * The hook secret is the one the sandbox signs with and GATEWAY_HOOK_SECRET_<ID> tells the gateway.
 */
export async function startStatefulProvider(options: {
  providerId: string;
  sandbox: (hooks: SandboxHooks) => Promise<StartedSandbox>;
  gateway?: Omit<TestGatewayOptions, "env">;
}): Promise<ProviderSetup> {
  const { providerId } = options;
  const upper = providerId.toUpperCase();
  const hookSecret = `whsec_${providerId}SandboxHookSecretForTests01`;
  let gatewayUrl = "";
  const sandbox = await options.sandbox({ url: () => `${gatewayUrl}/hooks/${providerId}`, secret: hookSecret });
  const receiver = await startReceiver();
  const t = await startTestGateway({
    ...options.gateway,
    env: {
      ...fastWorker,
      [`GATEWAY_UPSTREAM_${upper}_URL`]: sandbox.url,
      [`GATEWAY_HOOK_SECRET_${upper}`]: hookSecret,
    },
  });
  gatewayUrl = t.url;
  const webhookSecret = (await setEndpoint(t, receiver.url)) ?? "";
  const connectionId = await connectUser(t, providerId, "user_1");
  return {
    providerId,
    t,
    sandboxUrl: sandbox.url,
    receiver,
    webhookSecret,
    connectionId,
    async close() {
      await t.close();
      await receiver.close();
      await sandbox.close();
    },
  };
}

/** Connects a user of the sandbox (`demo` or `demo2`) through the hosted connect flow; answers the connection id. */
export async function connectUser(
  t: TestGateway,
  providerId: string,
  externalRef: string,
  username = "demo",
  key = t.key,
): Promise<string> {
  const session = await platform(
    t,
    "create_connect_session",
    { provider_id: providerId, external_ref: externalRef },
    key,
  );
  expect(session.status).toBe(200);
  const flow = await runConnectFlow({ connectUrl: session.body.data.connect_url, username, password: username });
  expect(flow.ok, flow.message).toBe(true);
  const listed = await platform(t, "list_connections", { external_ref: externalRef, provider_id: providerId }, key);
  return listed.body.data.connections[0].id as string;
}

export async function answer(response: Response): Promise<Answer> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === "" ? null : JSON.parse(text), text };
}

export interface CallOptions {
  connectionId?: string;
  key?: string;
  headers?: Record<string, string>;
}

/** POST /v1/{provider}/{operation} as the connected user (another connection or key when given). */
export async function callOperation(
  s: ProviderSetup,
  operation: string,
  body: unknown,
  options: CallOptions = {},
): Promise<Answer> {
  const response = await fetch(`${s.t.url}/v1/${s.providerId}/${operation}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${options.key ?? s.t.key}`,
      "content-type": "application/json",
      "x-gateway-connection-id": options.connectionId ?? s.connectionId,
      ...options.headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return answer(response);
}

/** POST {sandbox}/_sandbox/{path}: what the upstream's world does by itself, on demand. Expects 200. */
export async function sandboxControl(s: ProviderSetup, path: string, body: Record<string, unknown>): Promise<any> {
  const response = await sandboxPost(s, path, body);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

/** POST {sandbox}/_sandbox/{path}, whatever it answers. */
export async function sandboxPost(s: ProviderSetup, path: string, body: Record<string, unknown>): Promise<Answer> {
  return answer(
    await fetch(`${s.sandboxUrl}/_sandbox/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
}

/** Polls get_… until the resource's status is `status`; answers it. */
export async function untilStatus(s: ProviderSetup, operation: string, input: object, status: string) {
  return eventually(async () => {
    const read = await callOperation(s, operation, input);
    return read.body.data?.status === status ? read.body.data : undefined;
  });
}

/** The ids of the gateway's copies of stateful resources (to show that a refused call recorded nothing). */
export const copies = (s: ProviderSetup) =>
  s.t.gateway.core.store.db.selectFrom("provider_resources").select("id").execute();

/** A second account with its own key and a connection of the same `demo` user: its ids are foreign to ours. */
export async function otherAccount(s: ProviderSetup) {
  await s.t.gateway.core.accounts.ensure("other");
  const other = await s.t.gateway.core.apiKeys.create({ accountId: "other", name: "other", scopes: ["*"] });
  const connectionId = await connectUser(s.t, s.providerId, "user_other", "demo", other.key);
  return { key: other.key, connectionId };
}
