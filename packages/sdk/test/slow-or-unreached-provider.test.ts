// A state-changing call retried with the same Idempotency-Key against a provider that is unreachable or slow. A 502
// because the provider could not be reached at all (connection refused) is retried, and the retry succeeds: the
// gateway kept the key free because nothing was executed; the provider comes up while the client waits. An attempt
// that timed out while the operation still runs is retried into a 409 idempotency_in_progress, which is retried in
// turn until the first request's answer is replayed: the operation runs once.
import http from "node:http";
import { Type } from "@sinclair/typebox";
import { afterAll, beforeAll, expect, it } from "vitest";
import { platformProvider } from "../../gateway/src/providers/platform/manifest.ts";
import { StrictObject } from "../../gateway/src/providers/schemas.ts";
import { defineOperation, defineProvider } from "../../gateway/src/providers/types.ts";
import { freePort, startTestGateway, type TestGateway } from "../../gateway/test/harness.ts";
import { GatewayClient } from "../src/index.ts";
import { recordingFetch } from "./support/recording-fetch.ts";

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
/** The answers to orders of the item "slow", held until the test lets them go. */
const heldAnswers: (() => void)[] = [];
const answerHeld = () => {
  for (const answer of heldAnswers.splice(0)) answer();
};

beforeAll(async () => {
  port = await freePort();
  gateway = await startTestGateway({
    providers: [platformProvider, orders],
    env: { GATEWAY_UPSTREAM_ORDERS_URL: `http://127.0.0.1:${port}`, GATEWAY_IDEMPOTENCY_WAIT_MS: "300" },
  });
});
afterAll(async () => {
  answerHeld();
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
      const id = `ord_${received.length}`;
      const answer = () => response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id }));
      if (body.includes('"slow"')) heldAnswers.push(answer);
      else answer();
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

it("retries a 409 idempotency_in_progress with the same key until the first request's answer is replayed", async () => {
  if (!upstream) await startUpstream();
  const { fetch, attempts } = recordingFetch();
  const waits: number[] = [];
  const client = new GatewayClient({
    apiKey: gateway.key,
    baseUrl: gateway.url,
    fetch,
    timeoutMs: 1000,
    random: () => 0.5,
    // The provider answers the first request while the client waits before its second retry.
    sleep: async (ms) => {
      waits.push(ms);
      if (waits.length === 2) answerHeld();
    },
  });
  const { data } = await client.call("orders", "create_order", { item: "slow" }, { idempotencyKey: "order-slow-1" });
  const slowOrders = received.filter((body) => body === '{"item":"slow"}');
  expect(slowOrders).toHaveLength(1);
  expect(data).toEqual({ id: `ord_${received.indexOf('{"item":"slow"}') + 1}` });
  // A timeout (no status), the 409 of the still-running first request, then its answer replayed.
  expect(attempts.map((a) => [a.headers["idempotency-key"], a.status])).toEqual([
    ["order-slow-1", undefined],
    ["order-slow-1", 409],
    ["order-slow-1", 200],
  ]);
  expect(attempts[2]?.responseHeaders["idempotent-replayed"]).toBe("true");
  expect(waits).toEqual([250, 500]);
});
