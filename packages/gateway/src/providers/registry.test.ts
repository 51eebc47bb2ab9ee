// Walks the registry: every manifest is well-formed, its examples validate, and every operation of a provider with an
// upstream answers its example over real HTTP (through the sandbox) with data its output schema accepts, and refuses
// a bad input with 400 and the failing field.
import type { TSchema } from "@sinclair/typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../test/harness.ts";
import { createAjv } from "./ajv.ts";
import { fieldProblems, providers, Registry } from "./registry.ts";
import { PatternString, patternMessages } from "./schemas.ts";

const registry = new Registry(providers);
const ajv = createAjv();
for (const schema of registry.namedSchemas) ajv.addSchema(schema);

describe("every manifest", () => {
  it("has unique, well-formed provider and operation ids", () => {
    const ids = providers.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const provider of providers) {
      expect(provider.id).toMatch(/^[a-z][a-z0-9_]*$/);
      for (const operation of provider.operations) expect(operation.id).toMatch(/^[a-z][a-z0-9_]*$/);
    }
  });

  for (const { provider, operation } of registry.all()) {
    it(`${provider.id}:${operation.id} is stable 1.0.0, strict, and its example validates`, () => {
      expect(operation.lifecycle).toBe("stable");
      expect(operation.version).toBe("1.0.0");
      expect((operation.input as TSchema).additionalProperties).toBe(false);
      const validateInput = ajv.compile(operation.input as TSchema);
      const validateOutput = ajv.compile(operation.output as TSchema);
      expect(validateInput(structuredClone(operation.example.input)), JSON.stringify(validateInput.errors)).toBe(true);
      expect(validateOutput(operation.example.output), JSON.stringify(fieldProblems(validateOutput.errors))).toBe(true);
    });
  }
});

describe("the JsonValue schema", () => {
  it("is documented as the recursive JSON value, and the gateway's validators check its top-level type only", () => {
    const documented = ajv.compile({ $ref: "JsonValue" });
    const { validateOutput } = registry.operation("catalog", "product_detail") ?? {};
    for (const value of ["x", 1, true, null, [1, ["a", { b: null }]], { a: { b: [false, 2.5] } }]) {
      expect(documented(value)).toBe(true);
      expect(validateOutput?.(value)).toBe(true);
    }
    expect(documented(undefined)).toBe(false);
    expect(validateOutput?.(undefined)).toBe(false);
    // Below the top, only what JSON.stringify turns into a JSON value anyway: the deep check is the documented form's.
    expect(documented({ a: undefined })).toBe(false);
    expect(validateOutput?.({ a: undefined })).toBe(true);
  });
});

describe("field problems", () => {
  it("list each field once: the alternatives of an anyOf as one list of allowed values, without their type", () => {
    const validate = ajv.compile({
      type: "object",
      properties: {
        types: { type: "array", items: { anyOf: [{ const: "*" }, { type: "string", enum: ["a.b", "c.d"] }] } },
        mode: { type: "string", enum: ["fast"] },
        count: { type: "integer", minimum: 1 },
      },
      required: ["count"],
      additionalProperties: false,
    });
    expect(validate({ types: ["*", "x", 3], mode: "slow", extra: 1 })).toBe(false);
    expect(fieldProblems(validate.errors)).toEqual([
      { path: "/count", message: "is required" },
      { path: "/extra", message: "is not an allowed property" },
      { path: "/types/1", message: 'must be one of "*", "a.b", "c.d"' },
      { path: "/types/2", message: 'must be one of "*", "a.b", "c.d"' },
      { path: "/mode", message: 'must be "fast"' },
    ]);
  });

  it("escape the names of unknown and missing members in their JSON pointers (RFC 6901)", () => {
    const validate = ajv.compile({
      type: "object",
      properties: {
        "a/b": { type: "integer" },
        near: { type: "object", properties: { lat: { type: "number" } }, additionalProperties: false },
      },
      required: ["a/b"],
      additionalProperties: false,
    });
    expect(validate({ "c~d": 1, "x/y": 2, "~1": 3, near: { "q/r": 4 } })).toBe(false);
    expect(fieldProblems(validate.errors)).toEqual([
      { path: "/a~1b", message: "is required" },
      { path: "/c~0d", message: "is not an allowed property" },
      { path: "/x~1y", message: "is not an allowed property" },
      { path: "/~01", message: "is not an allowed property" },
      { path: "/near/q~1r", message: "is not an allowed property" },
    ]);
  });
});

describe("patterns", () => {
  /** Every `pattern` in a schema, however deep. */
  const patternsIn = (schema: unknown): string[] =>
    schema === null || typeof schema !== "object"
      ? []
      : Object.entries(schema).flatMap(([name, value]) =>
          name === "pattern" && typeof value === "string" ? [value] : patternsIn(value),
        );

  it("every input's pattern has words of its own for the 400, instead of the regular expression", () => {
    const unworded = providers.flatMap((provider) =>
      provider.operations.flatMap((operation) =>
        patternsIn(operation.input)
          .filter((pattern) => !patternMessages.has(pattern))
          .map((pattern) => `${provider.id}:${operation.id} ${pattern}`),
      ),
    );
    expect(unworded).toEqual([]);
  });

  it("a value a pattern refuses is told the pattern's words", () => {
    const validate = ajv.compile({
      type: "object",
      properties: { id: PatternString("^ab$", "must be ab"), free: { type: "string", pattern: "^x$" } },
    });
    expect(validate({ id: "b", free: "y" })).toBe(false);
    expect(fieldProblems(validate.errors)).toEqual([
      { path: "/id", message: "must be ab" },
      { path: "/free", message: 'must match pattern "^x$"' },
    ]);
    expect(() => PatternString("^ab$", "must be a, then b")).toThrow(
      'The pattern ^ab$ is given two messages: "must be ab" and "must be a, then b"',
    );
  });
});

describe("every upstream operation over real HTTP", () => {
  let t: TestGateway;
  beforeAll(async () => {
    // More calls than the default burst of 60: this suite is about operations, not rate limits.
    t = await startTestGateway({ env: { GATEWAY_RATE_LIMIT_PER_MINUTE: "100000", GATEWAY_RATE_LIMIT_BURST: "10000" } });
  });
  afterAll(async () => t?.close());

  const withUpstream = registry
    .all()
    .filter(({ provider, operation }) => provider.sandbox && operation.auth === "none");

  for (const { provider, operation, validateOutput } of withUpstream) {
    it(`${provider.id}:${operation.id} answers its example from the sandbox, within its output schema`, async () => {
      const response = await t.call(provider.id, operation.id, operation.example.input);
      const body = (await response.json()) as any;
      expect(response.status, JSON.stringify(body)).toBe(200);
      expect(body.meta.source).toBe(provider.id);
      expect(validateOutput(body.data), JSON.stringify(fieldProblems(validateOutput.errors))).toBe(true);
    });

    it(`${provider.id}:${operation.id} refuses an unknown field with 400 and its path`, async () => {
      const response = await t.call(provider.id, operation.id, {
        ...(operation.example.input as object),
        unexpected_field: 1,
      });
      const body = (await response.json()) as any;
      expect(response.status).toBe(400);
      expect(body.error.code).toBe("invalid_request");
      expect(body.error.details).toContainEqual({ path: "/unexpected_field", message: "is not an allowed property" });
    });
  }

  const credentials = registry.all().filter(({ operation }) => operation.auth === "credentials");
  for (const { provider, operation } of credentials) {
    it(`${provider.id}:${operation.id} needs X-Gateway-Connection-Id`, async () => {
      const response = await t.call(provider.id, operation.id, operation.example.input);
      const body = (await response.json()) as any;
      expect(response.status).toBe(400);
      expect(body.error.details).toEqual([{ path: "/headers/x-gateway-connection-id", message: "is required" }]);
    });
  }
});
