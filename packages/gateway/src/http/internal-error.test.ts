// 500 internal_error: an adapter that fails unexpectedly, or answers outside its own output schema, gives the
// envelope with no stack trace and no detail of the failure; the log has the failure under the request id.
import { Type } from "@sinclair/typebox";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../test/harness.ts";
import { captureLog } from "../../test/log-capture.ts";
import { GatewayError } from "../core/errors.ts";
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
    defineOperation({
      id: "gateway_error",
      summary: "Throws the gateway's own 500",
      auth: "none",
      input: StrictObject({}),
      output: Type.Object({}),
      example: { input: {}, output: {} },
      handle: async () => {
        throw new GatewayError("internal_error", "The widget could not be recorded", {
          cause: new Error("deadlock detected"),
        });
      },
    }),
  ],
});

const log = captureLog();
let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ providers: [platformProvider, faulty], logger: { level: "info", stream: log.stream } });
});
afterAll(async () => t?.close());

/** The lines logged about one request, besides its request line. */
const loggedFor = (requestId: string | null) =>
  log.lines().filter((line) => line.request_id === requestId && line.msg !== "request");

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

it("logs a 500 the gateway answered with its own message at error, with the cause, under the request id", async () => {
  const response = await t.call("faulty", "gateway_error");
  expect(response.status).toBe(500);
  expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
    "The widget could not be recorded",
  );
  const requestId = response.headers.get("x-request-id");
  const logged = loggedFor(requestId);
  expect(logged).toEqual([
    expect.objectContaining({
      level: 50,
      msg: "internal error: The widget could not be recorded",
      err: expect.objectContaining({ message: expect.stringContaining("deadlock detected") }),
    }),
  ]);
});

it("logs an answer outside the output schema once, at error, naming the field that broke it", async () => {
  const response = await t.call("faulty", "bad_output");
  const requestId = response.headers.get("x-request-id");
  const logged = loggedFor(requestId);
  expect(logged).toEqual([
    expect.objectContaining({
      level: 50,
      msg: "internal error: The answer of faulty:bad_output did not match its schema",
      err: expect.objectContaining({
        message: expect.stringContaining("faulty:bad_output output does not match its schema: /count must be integer"),
      }),
    }),
  ]);
});
