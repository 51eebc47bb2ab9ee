// 500 internal_error: an adapter that fails unexpectedly, or answers outside its own output schema, gives the
// envelope with no stack trace and no detail of the failure.
import { Type } from "@sinclair/typebox";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../test/harness.ts";
import { platformProvider } from "../providers/platform/manifest.ts";
import { StrictObject } from "../providers/schemas.ts";
import { defineOperation, defineProvider } from "../providers/types.ts";

const faulty = defineProvider({
  id: "faulty",
  title: "Faulty",
  description: "Fails on purpose.",
  operations: [
    defineOperation({
      id: "throw",
      summary: "Throws a plain error",
      auth: "none",
      input: StrictObject({}),
      output: Type.Object({}),
      example: { input: {}, output: {} },
      handle: async () => {
        throw new Error("secret internal detail at /srv/app.ts:12");
      },
    }),
    defineOperation({
      id: "bad_output",
      summary: "Answers outside its schema",
      auth: "none",
      input: StrictObject({}),
      output: Type.Object({ count: Type.Integer() }, { additionalProperties: false }),
      example: { input: {}, output: { count: 1 } },
      handle: async () => ({ data: { count: "many" } as never }),
    }),
  ],
});

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ providers: [platformProvider, faulty] });
});
afterAll(async () => t?.close());

for (const operation of ["throw", "bad_output"]) {
  it(`answers 500 internal_error for ${operation}, without leaking the cause`, async () => {
    const response = await t.call("faulty", operation);
    const body = await response.text();
    expect(response.status).toBe(500);
    expect(JSON.parse(body)).toEqual({
      error: {
        code: "internal_error",
        message:
          operation === "throw"
            ? "The request failed inside the gateway"
            : "The answer of faulty:bad_output did not match its schema",
        request_id: response.headers.get("x-request-id"),
        retryable: false,
      },
    });
    expect(body).not.toContain("secret internal detail");
    expect(body).not.toContain("stack");
  });
}
