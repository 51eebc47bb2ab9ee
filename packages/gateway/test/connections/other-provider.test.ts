// A connection belongs to one provider: its id on another provider's credentials operation is 404, like an
// unknown id (a test-only provider with a credentials operation stands in for the future ones).
import { Type } from "@sinclair/typebox";
import { afterAll, beforeAll, expect, it } from "vitest";
import { providers } from "../../src/providers/registry.ts";
import { defineOperation, defineProvider } from "../../src/providers/types.ts";
import { connect, type ShoppingSetup, shopping, startShopping } from "./setup.ts";

const rides = defineProvider({
  id: "rides_test",
  title: "Rides (test)",
  description: "A credentials provider for this test only.",
  oauth: { scopes: ["rides"] },
  operations: [
    defineOperation({
      id: "whoami",
      summary: "Who the connection is",
      auth: "credentials",
      readOnly: true,
      input: Type.Object({}, { additionalProperties: false }),
      output: Type.Object({ connection_id: Type.String() }),
      example: { input: {}, output: { connection_id: "conn_5kQ2hV8xLm3Rt7YpWz1BcD" } },
      async handle(_input, ctx) {
        return { data: { connection_id: ctx.connection?.id ?? "" } };
      },
    }),
  ],
});

let s: ShoppingSetup;
beforeAll(async () => {
  s = await startShopping({ gateway: { providers: [...providers, rides] } });
});
afterAll(async () => s?.close());

it("a shopping connection on another provider's operation is 404", async () => {
  const { connection } = await connect(s.t, "other_provider");
  expect((await shopping(s.t, "get_cart", connection.id)).status).toBe(200);
  const response = await s.t.call("rides_test", "whoami", {}, { "x-gateway-connection-id": connection.id });
  const body = (await response.json()) as any;
  expect(response.status).toBe(404);
  expect(body.error).toEqual({
    code: "not_found",
    message: `No connection ${connection.id} for the rides_test provider`,
    request_id: response.headers.get("x-request-id"),
    retryable: false,
  });
});
