// A 502 is replayed under its Idempotency-Key when the provider was called, but not when nothing was executed: the
// gateway never reached it (connection refused), or it refused the call for its rate limit (429). Nor is a 500 of the
// store failing while the request's connection was read, before the operation began. A retry with the key then runs
// anew.
import http from "node:http";
import { Type } from "@sinclair/typebox";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freePort, startTestGateway, type TestGateway } from "../../../test/harness.ts";
import { platformProvider } from "../../providers/platform/manifest.ts";
import { StrictObject } from "../../providers/schemas.ts";
import { defineOperation, defineProvider } from "../../providers/types.ts";

const orders = defineProvider({
  id: "orders",
  title: "Orders",
  description: "A test provider whose one operation creates something upstream.",
  sandbox: "none",
  operations: [
    defineOperation({
      id: "create_thing",
      summary: "Creates a thing upstream",
      auth: "none",
      input: StrictObject({ name: Type.String() }),
      output: Type.Object({ id: Type.String() }, { additionalProperties: false }),
      example: { input: { name: "a" }, output: { id: "thing_1" } },
      handle: async (input, ctx) => ({
        data: await ctx.upstream.request<{ id: string }>({ method: "POST", path: "/things", body: input }),
      }),
    }),
  ],
});

// The same, acting for a connected end user: the connection is read from the store before the operation runs.
const connected = defineProvider({
  id: "orders_connected",
  title: "Orders (connected)",
  description: "A test provider whose one operation creates something upstream for a connection.",
  sandbox: "none",
  oauth: { scopes: ["orders"] },
  operations: [
    defineOperation({
      id: "create_thing",
      summary: "Creates a thing upstream for the connection",
      auth: "credentials",
      input: StrictObject({ name: Type.String() }),
      output: Type.Object({ id: Type.String() }, { additionalProperties: false }),
      example: { input: { name: "a" }, output: { id: "thing_1" } },
      handle: async (input, ctx) => ({
        data: await ctx.upstream.request<{ id: string }>({ method: "POST", path: "/things", body: input }),
      }),
    }),
  ],
});

let t: TestGateway;
let port: number;
let upstream: http.Server | undefined;
let upstreamStatus = 200;
let upstreamHeaders: Record<string, string> = {};
let created = 0;

beforeAll(async () => {
  port = await freePort();
  t = await startTestGateway({
    providers: [platformProvider, orders, connected],
    env: {
      GATEWAY_UPSTREAM_ORDERS_URL: `http://127.0.0.1:${port}`,
      GATEWAY_UPSTREAM_ORDERS_CONNECTED_URL: `http://127.0.0.1:${port}`,
    },
  });
});
afterAll(async () => {
  await t?.close();
  upstream?.close();
});

function startUpstream(): Promise<void> {
  upstream = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      if (upstreamStatus !== 200) {
        response.writeHead(upstreamStatus, { "content-type": "application/json", ...upstreamHeaders }).end("{}");
        return;
      }
      created += 1;
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id: `thing_${created}` }));
    });
  });
  return new Promise((resolve) => upstream?.listen(port, "127.0.0.1", resolve));
}

const create = (key: string) => t.call("orders", "create_thing", { name: "a" }, { "idempotency-key": key });

it("does not store a 502 for a provider that refused the connection, so the retry executes", async () => {
  const first = await create("refused-then-up");
  expect(first.status).toBe(502);
  expect(((await first.json()) as any).error).toMatchObject({ code: "provider_unavailable", provider: "orders" });

  await startUpstream();
  const retry = await create("refused-then-up");
  expect(retry.status).toBe(200);
  expect(retry.headers.get("idempotent-replayed")).toBeNull();
  const body = await retry.text();
  expect(JSON.parse(body).data).toEqual({ id: "thing_1" });

  const again = await create("refused-then-up");
  expect(again.headers.get("idempotent-replayed")).toBe("true");
  expect(await again.text()).toBe(body);
  expect(created).toBe(1);
});

it("stores and replays a 502 for a provider that was reached and failed", async () => {
  upstreamStatus = 503;
  const first = await create("reached-and-failed");
  const firstBody = await first.text();
  expect(first.status).toBe(502);
  upstreamStatus = 200;
  const retry = await create("reached-and-failed");
  expect(retry.status).toBe(502);
  expect(retry.headers.get("idempotent-replayed")).toBe("true");
  expect(await retry.text()).toBe(firstBody);
});

it("does not store the 502 of a provider that rate limited the call: the retry after Retry-After executes", async () => {
  upstreamStatus = 429;
  upstreamHeaders = { "retry-after": "7" };
  const before = created;
  const first = await create("rate-limited-then-ok");
  expect(first.status).toBe(502);
  expect(first.headers.get("retry-after")).toBe("7");
  expect(((await first.json()) as any).error).toMatchObject({ code: "provider_unavailable", retryable: true });
  upstreamStatus = 200;
  upstreamHeaders = {};
  const retry = await create("rate-limited-then-ok");
  expect(retry.status).toBe(200);
  expect(retry.headers.get("idempotent-replayed")).toBeNull();
  expect(created).toBe(before + 1);
});

it("does not store the 500 of a store that failed while the connection was read: the retry executes", async () => {
  const { db } = t.gateway.core.store;
  const connectionId = "conn_5kQ2hV8xLm3Rt7YpWz1BcD";
  const send = () =>
    t.call(
      "orders_connected",
      "create_thing",
      { name: "a" },
      { "idempotency-key": "store-failed-then-up", "x-gateway-connection-id": connectionId },
    );
  await sql`alter table connections rename to connections_away`.execute(db);
  let first: Response;
  try {
    first = await send();
  } finally {
    await sql`alter table connections_away rename to connections`.execute(db);
  }
  expect(first.status).toBe(500);
  expect(((await first.json()) as any).error).toMatchObject({ code: "internal_error", retryable: false });

  // Run anew: the connection is read, and there is none with this id.
  const retry = await send();
  expect(retry.status).toBe(404);
  expect(retry.headers.get("idempotent-replayed")).toBeNull();
  expect(((await retry.json()) as any).error).toMatchObject({
    code: "not_found",
    message: `No connection ${connectionId} for the orders_connected provider`,
  });
});
