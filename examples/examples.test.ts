// The examples work: both receivers accept what the gateway signs and refuse the rest, a real gateway's test event
// reaches each of them, and (once the dining provider exists) the reservation example gets its confirmation.
import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { GatewayClient, operationTable, signWebhookPayload, type WebhookEvent } from "@provider-gateway/sdk";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runConnectFlow } from "../packages/gateway/src/cli/connect-flow.ts";
import { startTestGateway, type TestGateway } from "../packages/gateway/test/harness.ts";
import { reserveAndAwaitConfirmation } from "./reservation.ts";
import { buildReceiver } from "./webhook-receiver-fastify.ts";
import { createReceiver } from "./webhook-receiver-node.ts";

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const body = JSON.stringify({
  id: "evt_1",
  type: "test.event",
  created_at: new Date().toISOString(),
  data: { object: {} },
});

async function until<T>(read: () => T | undefined, deadlineMs = 10_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("not received before the deadline");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

type OnEvent = (event: WebhookEvent) => void;

const receivers = {
  "node:http": async (receiverSecret: string, onEvent: OnEvent) => {
    const server: Server = createReceiver({ secret: receiverSecret, onEvent }).listen(0, "127.0.0.1");
    await once(server, "listening");
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  },
  fastify: async (receiverSecret: string, onEvent: OnEvent) => {
    const app: FastifyInstance = buildReceiver({ secret: receiverSecret, onEvent });
    const address = await app.listen({ host: "127.0.0.1", port: 0 });
    return { url: `${address}/webhooks/gateway`, close: () => app.close() };
  },
};

let gateway: TestGateway;
beforeAll(async () => {
  vi.stubEnv("SANDBOX_VENUE_DELAY_MS", "200"); // the in-process dining sandbox's venue confirms after 0.2 s
  gateway = await startTestGateway({
    env: { GATEWAY_WEBHOOK_ALLOW_PRIVATE: "1", GATEWAY_WEBHOOK_POLL_INTERVAL_MS: "20" },
  });
});
afterAll(async () => {
  await gateway?.close();
  vi.unstubAllEnvs();
});

for (const [name, start] of Object.entries(receivers)) {
  describe(`the ${name} receiver`, () => {
    it("answers 200 to a signed delivery, 400 to a tampered or unsigned one, and passes each event on once", async () => {
      const events: WebhookEvent[] = [];
      const receiver = await start(secret, (event) => events.push(event));
      try {
        const post = (payload: string, header?: string) =>
          fetch(receiver.url, {
            method: "POST",
            headers: { "content-type": "application/json", ...(header && { "gateway-signature": header }) },
            body: payload,
          });
        const header = await signWebhookPayload({ payload: body, secret });
        expect((await post(body, header)).status).toBe(200);
        expect((await post(body.replace("evt_1", "evt_2"), header)).status).toBe(400);
        expect((await post(body)).status).toBe(400);
        await until(() => events[0]);
        expect(events.map((e) => e.id)).toEqual(["evt_1"]);
      } finally {
        await receiver.close();
      }
    });

    it("receives the test event a real gateway signs and delivers", async () => {
      const client = new GatewayClient({ apiKey: gateway.key, baseUrl: gateway.url });
      // The secret comes with the registration (or a rotation), so register first and point the URL at the receiver next.
      const { data } = await client.platform.setWebhookEndpoint({ url: "http://127.0.0.1:9/", event_types: ["*"] });
      const endpointSecret = data.secret ?? (await client.platform.rotateWebhookSecret({})).data.secret;
      const events: WebhookEvent[] = [];
      const receiver = await start(endpointSecret, (event) => events.push(event));
      try {
        await client.platform.setWebhookEndpoint({ url: receiver.url, event_types: ["*"] });
        const { data: sent } = await client.platform.sendTestEvent();
        const event = await until(() => events.find((e) => e.id === sent.event.id));
        expect(event).toEqual(sent.event);
      } finally {
        await receiver.close();
      }
    });
  });
}

const hasDining = "dining" in operationTable;

describe.skipIf(!hasDining)("the reservation example", () => {
  it("makes a reservation at rst_approval and receives its reservation.confirmed", async () => {
    const admin = new GatewayClient({ apiKey: gateway.key, baseUrl: gateway.url });
    const session = await admin.platform.createConnectSession({ provider_id: "dining", external_ref: "diner-1" });
    const flow = await runConnectFlow({ connectUrl: session.data.connect_url, username: "demo", password: "demo" });
    expect(flow.ok).toBe(true);
    const { data } = await admin.platform.listConnections({ external_ref: "diner-1", provider_id: "dining" });
    const connectionId = data.connections[0]?.id as string;
    const event = await reserveAndAwaitConfirmation({ baseUrl: gateway.url, apiKey: gateway.key, connectionId });
    expect(event).toMatchObject({ type: "reservation.confirmed", data: { object: { status: "confirmed" } } });
    expect(event.data.object).toMatchObject({ restaurant_id: "rst_approval", party_size: 2 });
  });
});
