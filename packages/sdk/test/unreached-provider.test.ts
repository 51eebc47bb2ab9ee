// A state-changing call that got a 502 because the provider could not be reached at all (connection refused) is
// retried by the client with the same Idempotency-Key, and the retry succeeds: the gateway kept the key free because
// nothing was executed. The provider comes up while the client waits between attempts.
import http from "node:http";
import { Type } from "@sinclair/typebox";
import { afterAll, beforeAll, expect, it } from "vitest";
import { platformProvider } from "../../gateway/src/providers/platform/manifest.ts";
import { StrictObject } from "../../gateway/src/providers/schemas.ts";
import { defineOperation, defineProvider } from "../../gateway/src/providers/types.ts";
import { freePort, startTestGateway, type TestGateway } from "../../gateway/test/harness.ts";
import { GatewayClient } from "../src/index.ts";

const orders = defineProvider({
  id: "orders",
  title: "Orders",
  description: "A test provider whose one operation creates an order upstream.",
  sandbox: "none",
  operations: [
    defineOperation({
      id: "create_order",
      summary: "Creates an order upstream",
      auth: "none",
      input: StrictObject({ item: Type.String() }),
      output: Type.Object({ id: Type.String() }, { additionalProperties: false }),
      example: { input: { item: "ramen" }, output: { id: "ord_1" } },
      handle: async (input, ctx) => ({
        data: await ctx.upstream.request<{ id: string }>({ method: "POST", path: "/orders", body: input }),
      }),
    }),
  ],
});

let gateway: TestGateway;
let port: number;
let upstream: http.Server | undefined;
const received: string[] = [];

beforeAll(async () => {
  port = await freePort();
  gateway = await startTestGateway({
    providers: [platformProvider, orders],
    env: { GATEWAY_UPSTREAM_ORDERS_URL: `http://127.0.0.1:${port}` },
  });
});
afterAll(async () => {
  upstream?.close();
  await gateway?.close();
});

function startUpstream(): Promise<void> {
  upstream = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on("end", () => {
      received.push(body);
      response
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ id: `ord_${received.length}` }));
    });
  });
  return new Promise((resolve) => upstream?.listen(port, "127.0.0.1", resolve));
}

it("retries a 502 from an unreachable provider with the same Idempotency-Key and succeeds on the second try", async () => {
  const seenKeys: (string | null)[] = [];
  const statuses: number[] = [];
  const client = new GatewayClient({
    apiKey: gateway.key,
    baseUrl: gateway.url,
    random: () => 0.5,
    fetch: async (input, init) => {
      seenKeys.push(new Headers(init?.headers).get("idempotency-key"));
      const response = await fetch(input, init);
      statuses.push(response.status);
      return response;
    },
    // The provider comes up while the client waits before its retry.
    sleep: async () => {
      if (!upstream) await startUpstream();
    },
  });
  const { data } = await client.call("orders", "create_order", { item: "ramen" }, { idempotencyKey: "order-ramen-1" });
  expect(data).toEqual({ id: "ord_1" });
  expect(statuses).toEqual([502, 200]);
  expect(seenKeys).toEqual(["order-ramen-1", "order-ramen-1"]);
  expect(received).toEqual(['{"item":"ramen"}']);
});
