// The OpenAPI document: served at /openapi.json, lint-clean under Redocly's recommended rules, and carrying the
// x- markers and error responses every operation must have.
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { Ajv } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../test/harness.ts";

let t: TestGateway;
let document: any;
beforeAll(async () => {
  t = await startTestGateway();
  const response = await fetch(`${t.url}/openapi.json`);
  expect(response.status).toBe(200);
  document = await response.json();
});
afterAll(async () => t?.close());

describe("GET /openapi.json", () => {
  it("is OpenAPI 3.1.0 with info.version 7", () => {
    expect(document.openapi).toBe("3.1.0");
    expect(document.info.version).toBe("7");
    expect(document.servers).toEqual([{ url: t.config.publicUrl }]);
  });

  it("passes Redocly's recommended ruleset with no errors and no warnings", async () => {
    // The one rule turned off: `servers` is the gateway's own public URL, which is localhost in development and tests.
    const config = await createConfig({ extends: ["recommended"], rules: { "no-server-example.com": "off" } });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: "openapi.json", config });
    const described = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(described).toEqual([]);
  });

  it("declares every registry operation once, with markers and error responses", () => {
    const operations = t.gateway.registry.all();
    // Resource aliases (e.g. /v1/dining/reservations/{reservation_id}) add their own paths, and the catalogue its own.
    const aliasPaths = new Set(
      t.gateway.registry.providers.flatMap((p) => (p.aliases ?? []).map((a) => `/v1/${p.id}${a.path}`)),
    );
    expect(Object.keys(document.paths)).toHaveLength(operations.length + aliasPaths.size + 1);
    for (const { provider, operation } of operations) {
      const entry = document.paths[`/v1/${provider.id}/${operation.id}`].post;
      expect(entry.operationId).toBe(`${provider.id}_${operation.id}`);
      expect(entry["x-lifecycle"]).toBe("stable");
      expect(entry["x-operation-version"]).toBe("1.0.0");
      expect(entry["x-connection-required"]).toBe(operation.auth === "credentials");
      expect(entry["x-auth-mode"]).toBe(operation.auth);
      for (const status of ["200", "400", "401", "429", "500"]) expect(entry.responses).toHaveProperty(status);
      expect(entry.responses["400"].content["application/json"].schema).toEqual({
        $ref: "#/components/schemas/ErrorEnvelope",
      });
    }
  });

  it("marks a request body optional only where a call without one is not refused for it", async () => {
    // recommend_products names no required field, yet needs one of product_id and category_id (a rule of its check).
    expect(document.paths["/v1/catalog/recommend_products"].post.requestBody.required).toBe(true);
    // Every `none` operation whose body the document leaves optional runs without one (credentials ones would be
    // refused first for their missing connection).
    for (const { provider, operation } of t.gateway.registry.all()) {
      const entry = document.paths[`/v1/${provider.id}/${operation.id}`].post;
      if (operation.auth !== "none" || entry.requestBody?.required !== false) continue;
      const response = await fetch(`${t.url}/v1/${provider.id}/${operation.id}`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.key}` },
      });
      expect([`${provider.id}:${operation.id}`, response.status]).not.toEqual([`${provider.id}:${operation.id}`, 400]);
    }
  });
});

describe("response headers in the document", () => {
  const names = (response: { headers: Record<string, unknown> }) => Object.keys(response.headers);

  it("declares the request id, the rate limit, Retry-After and Idempotent-Replayed where each is sent", () => {
    // A write with an Idempotency-Key: replayed answers carry Idempotent-Replayed; what executed nothing does not.
    const write = document.paths["/v1/dining/create_reservation"].post.responses;
    const limits = ["X-Request-Id", "RateLimit-Policy", "RateLimit"];
    expect(names(write["200"])).toEqual([...limits, "Idempotent-Replayed"]);
    expect(names(write["400"])).toEqual(limits);
    expect(names(write["401"])).toEqual(["X-Request-Id", "WWW-Authenticate"]);
    expect(document.components.headers.WwwAuthenticate.required).toBe(true);
    expect(names(write["429"])).toEqual([...limits, "Retry-After"]);
    expect(write["429"].headers["Retry-After"]).toEqual({ $ref: "#/components/headers/RetryAfterAlways" });
    expect(document.components.headers.RetryAfterAlways.required).toBe(true);
    expect(names(write["502"])).toEqual([...limits, "Retry-After", "Idempotent-Replayed"]);
    expect(write["502"].headers["Retry-After"]).toEqual({ $ref: "#/components/headers/RetryAfter" });
    // A read-only POST takes an Idempotency-Key as any POST does, and its answers are replayed the same way.
    const read = document.paths["/v1/catalog/product_detail"].post;
    expect(read.parameters).toEqual([{ $ref: "#/components/parameters/IdempotencyKey" }]);
    expect(names(read.responses["200"])).toEqual([...limits, "Idempotent-Replayed"]);
    // GET and DELETE ignore the header: nothing is replayed there.
    const resource = document.paths["/v1/dining/reservations/{reservation_id}"];
    for (const method of ["get", "delete"]) {
      expect(resource[method].parameters.map((p: { name?: string }) => p.name)).toEqual([
        "reservation_id",
        "X-Gateway-Connection-Id",
      ]);
      expect(names(resource[method].responses["200"])).toEqual(limits);
    }
    expect(document.components.headers.RetryAfter.schema).toEqual({ type: "integer", minimum: 1 });
  });

  it("declares Idempotent-Replayed on a read-only operation, whose repeated key is replayed", async () => {
    const send = () =>
      fetch(`${t.url}/v1/opendata/list_holidays`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${t.key}`,
          "content-type": "application/json",
          "idempotency-key": "holidays-1",
        },
        body: JSON.stringify({ year: 2026 }),
      });
    expect((await send()).headers.get("idempotent-replayed")).toBeNull();
    const again = await send();
    expect([again.status, again.headers.get("idempotent-replayed")]).toEqual([200, "true"]);
    expect(Object.keys(document.paths["/v1/opendata/list_holidays"].post.responses["200"].headers)).toContain(
      "Idempotent-Replayed",
    );
  });

  it("declares the Idempotency-Key header as sent, the quoted form included", async () => {
    const valid = new Ajv().compile(document.components.parameters.IdempotencyKey.schema);
    const send = (key: string) =>
      fetch(`${t.url}/v1/platform/create_api_key`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.key}`, "content-type": "application/json", "idempotency-key": key },
        body: JSON.stringify({ scopes: ["opendata"] }),
      }).then((response) => response.status);
    // The longest key the gateway takes: 255 backslashes, each escaped, quoted.
    const longest = `"${"\\\\".repeat(255)}"`;
    expect(longest).toHaveLength(512);
    for (const key of ["k", "a".repeat(255), `"${"a".repeat(255)}"`, longest]) {
      expect([key.length, valid(key), await send(key)]).toEqual([key.length, true, 200]);
    }
    for (const key of ["a".repeat(513), "", "caf\u00e9"]) expect([key, valid(key)]).toEqual([key, false]);
  });
});

describe("GET /v1/operations", () => {
  it("lists every provider and operation with auth mode, lifecycle, version and schemas", async () => {
    const response = await fetch(`${t.url}/v1/operations`, { headers: { authorization: `Bearer ${t.key}` } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      data: { providers: any[]; schemas: Record<string, any> };
      meta: unknown;
      pagination: unknown;
    };
    // The success envelope, as every 200 answer.
    expect(body.meta).toEqual({ source: "platform", fetched_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) });
    expect(body.pagination).toBeNull();
    const { data } = body;
    // Every bare $ref in the catalogue names one of its own schemas.
    const refs = [...JSON.stringify(data.providers).matchAll(/"\$ref":"([^"#]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) expect(data.schemas[ref as string]?.$id).toBe(ref);
    const listed = data.providers.flatMap((p) => p.operations.map((o: any) => ({ p: p.id, o })));
    expect(listed).toHaveLength(t.gateway.registry.all().length);
    const keys = listed.find(({ p, o }) => p === "platform" && o.id === "create_api_key")?.o;
    expect(keys).toMatchObject({
      path: "/v1/platform/create_api_key",
      auth_mode: "none",
      connection_required: false,
      input_required: true,
      lifecycle: "stable",
      version: "1.0.0",
      input_schema: { type: "object", additionalProperties: false },
      aliases: [],
    });
    // The one rule of the OpenAPI document's required request body and the SDK's signatures: a schema's required
    // field, or a rule that refuses an empty input.
    const input = (p: string, id: string) =>
      listed.find((entry) => entry.p === p && entry.o.id === id)?.o.input_required;
    expect([input("catalog", "recommend_products"), input("catalog", "search_products")]).toEqual([true, false]);
    const dining = (id: string) => listed.find(({ p, o }) => p === "dining" && o.id === id)?.o;
    expect(dining("get_reservation").aliases).toEqual([
      { method: "GET", path: "/v1/dining/reservations/{reservation_id}" },
    ]);
    expect(dining("create_reservation").aliases).toEqual([{ method: "POST", path: "/v1/dining/reservations" }]);
    // Every alias listed is a path the gateway answers (a GET of an unknown reservation is its 404, not a route's).
    const missing = await fetch(`${t.url}/v1/dining/reservations/rsv_0000000000000000000000`, {
      headers: { authorization: `Bearer ${t.key}`, "x-gateway-connection-id": "conn_0000000000000000000000" },
    });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { message: string } }).error.message).not.toMatch(/^No route/);
  });

  it("needs a key", async () => {
    const response = await fetch(`${t.url}/v1/operations`);
    expect(response.status).toBe(401);
  });

  it("shows a list's example answer with its pagination, and null for an operation that is not a list", () => {
    const example = (path: string) => document.paths[path].post.responses["200"].content["application/json"].example;
    expect(example("/v1/catalog/search_products").pagination).toEqual({
      next_cursor: expect.any(String),
      has_more: true,
    });
    expect(example("/v1/catalog/product_detail").pagination).toBeNull();
  });

  it("is in the OpenAPI document, with the envelope and its errors", async () => {
    const entry = document.paths["/v1/operations"].get;
    expect(entry.operationId).toBe("list_operations");
    expect(Object.keys(entry.responses)).toEqual(["200", "401", "429", "500"]);
    expect(entry.responses["200"].content["application/json"].schema.required).toEqual(["data", "meta", "pagination"]);
  });
});

describe("GET /docs", () => {
  it("serves the API reference page", async () => {
    const response = await fetch(`${t.url}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/html");
    expect(await response.text()).toContain("swagger-ui");
    // Served over plain http too: the policy must not send browsers to https for the page's own scripts.
    const policy = response.headers.get("content-security-policy") ?? "";
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain("upgrade-insecure-requests");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
  });
});
