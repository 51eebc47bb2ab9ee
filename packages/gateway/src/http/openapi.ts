// The OpenAPI 3.1.0 document of the whole API, generated from the registry: the same schemas that validate requests.
import type { TSchema } from "@sinclair/typebox";
import { aliasParams, aliasPublicPath } from "../providers/aliases.ts";
import type { Registry } from "../providers/registry.ts";
import {
  inputRequired,
  type OperationDefinition,
  type ProviderDefinition,
  type ResourceAlias,
} from "../providers/types.ts";
import { sharedComponents, sharedSchemas } from "./openapi-components.ts";

const errorResponses: Record<string, string> = {
  "400": "The request failed validation (`invalid_request`); `details` lists every failing field.",
  "401": "The API key is missing or invalid (`unauthorized`).",
  "403": "The key's scopes do not allow this operation (`scope_denied`).",
  "404": "A resource named in the request does not exist (`not_found`).",
  "409": "The request conflicts with the resource's current state (`conflict`).",
  "422": "The provider's own policy refused the request (`provider_rejected`).",
  "429": "Over the rate limit (`rate_limited`); see Retry-After.",
  "500": "The request failed inside the gateway (`internal_error`).",
  "502": "The provider did not answer (`provider_unavailable`); retryable.",
};

/** Rewrites TypeBox's bare `$ref: "Name"` into component references, and drops `$id`s inside operations. */
function toOpenApiSchema(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema), (key, value) => {
    if (key === "$ref" && typeof value === "string" && !value.startsWith("#")) return `#/components/schemas/${value}`;
    return value;
  });
}

/** The operation, or one of its resource aliases (path parameters from the input, a body for POST only). */
function operationObject(provider: ProviderDefinition, operation: OperationDefinition, alias?: ResourceAlias) {
  const credentials = operation.auth === "credentials";
  const parameters: unknown[] = [];
  const input = operation.input as TSchema & { required?: string[]; properties?: Record<string, unknown> };
  const params = alias ? aliasParams(alias.path) : [];
  for (const name of params) {
    parameters.push({ name, in: "path", required: true, schema: toOpenApiSchema(input.properties?.[name]) });
  }
  if (credentials) {
    parameters.push({
      name: "X-Gateway-Connection-Id",
      in: "header",
      required: true,
      description: "The Connection to act on (`conn_` + 22 characters). Send it from server code only.",
      schema: { type: "string", pattern: "^conn_[0-9A-Za-z]{22}$" },
    });
  }
  // Every POST takes the key, a read-only one too (docs/idempotency.md); GET and DELETE ignore it.
  const idempotent = (alias?.method ?? "POST") === "POST";
  if (idempotent) parameters.push({ $ref: "#/components/parameters/IdempotencyKey" });
  const responses = {
    "200": successResponse(toOpenApiSchema(operation.output), idempotent, {
      data: operation.example.output,
      meta: { source: provider.id, fetched_at: "2026-11-21T09:00:00.000Z" },
      pagination: examplePagination(operation),
    }),
    ...errorResponsesOf(Object.keys(errorResponses), idempotent),
  };
  const uniform = `POST /v1/${provider.id}/${operation.id}`;
  const description = alias
    ? `Resource path of \`${uniform}\`: same input, answer, errors${alias.method === "POST" ? " and Idempotency-Key" : ""}.` +
      (operation.description ? `\n\n${operation.description}` : "")
    : operation.description;
  const body = alias?.method === "GET" || alias?.method === "DELETE" ? undefined : bodySchema(input, params);
  return {
    operationId: alias
      ? `${provider.id}_${operation.id}_${alias.method.toLowerCase()}_alias`
      : `${provider.id}_${operation.id}`,
    summary: operation.summary,
    ...(description && { description }),
    tags: [provider.id],
    "x-lifecycle": operation.lifecycle,
    "x-operation-version": operation.version,
    "x-connection-required": credentials,
    "x-auth-mode": operation.auth,
    ...(parameters.length > 0 && { parameters }),
    ...(body && {
      requestBody: {
        required: inputRequired(operation, body),
        content: {
          "application/json": {
            schema: toOpenApiSchema(body),
            example: Object.fromEntries(
              Object.entries(operation.example.input as object).filter(([name]) => !params.includes(name)),
            ),
          },
        },
      },
    }),
    responses,
  };
}

/**
 * The pagination of an operation's example answer: null for an operation that is not a list (it takes no cursor);
 * for a list whose example asks for a short page, the next page's cursor, as the real answer has; else the last page.
 */
function examplePagination(operation: OperationDefinition) {
  const input = operation.input as TSchema & { properties?: Record<string, unknown> };
  if (!input.properties || !("cursor" in input.properties)) return null;
  const shortPage = "limit" in (operation.example.input as object);
  return shortPage
    ? { next_cursor: "Yk3qL9xV2mNw8RtZ5pHc7sJd4fGa1eUo6iBy0TnKvWq", has_more: true }
    : { next_cursor: null, has_more: false };
}

const header = (name: string) => ({ $ref: `#/components/headers/${name}` });
/** Statuses whose answer is stored under an Idempotency-Key and replayed (400, 401, 403 and 429 executed nothing). */
const replayable = new Set(["200", "404", "409", "422", "500", "502"]);

/** The headers of one response: the request id always; the key's rate limit once a key was found; and so on. */
function responseHeaders(status: string, idempotent: boolean): Record<string, unknown> {
  return {
    "X-Request-Id": header("XRequestId"),
    ...(status === "401" && { "WWW-Authenticate": header("WwwAuthenticate") }),
    ...(status !== "401" && { "RateLimit-Policy": header("RateLimitPolicy"), RateLimit: header("RateLimit") }),
    ...(status === "429" && { "Retry-After": header("RetryAfterAlways") }),
    ...(status === "502" && { "Retry-After": header("RetryAfter") }),
    ...(idempotent && replayable.has(status) && { "Idempotent-Replayed": header("IdempotentReplayed") }),
  };
}

/** The input schema without the properties a path supplies. */
function bodySchema(input: TSchema & { required?: string[]; properties?: Record<string, unknown> }, params: string[]) {
  if (params.length === 0) return input;
  const properties = Object.fromEntries(
    Object.entries(input.properties ?? {}).filter(([name]) => !params.includes(name)),
  );
  return { ...input, properties, required: (input.required ?? []).filter((name) => !params.includes(name)) };
}

/** The success envelope's 200, with `data` as given. */
function successResponse(data: unknown, idempotent: boolean, example?: unknown) {
  const schema = {
    type: "object",
    required: ["data", "meta", "pagination"],
    properties: {
      data,
      meta: { $ref: "#/components/schemas/Meta" },
      pagination: { $ref: "#/components/schemas/Pagination" },
    },
  };
  return {
    description: "Success.",
    headers: responseHeaders("200", idempotent),
    content: { "application/json": { schema, ...(example !== undefined && { example }) } },
  };
}

/** The error envelope's responses of these statuses. */
function errorResponsesOf(statuses: string[], idempotent: boolean) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: errorResponses[status],
        headers: responseHeaders(status, idempotent),
        content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } },
      },
    ]),
  );
}

/** GET /v1/operations, the catalogue: the gateway's own route, answered with the success envelope as every 200. */
function catalogueOperation() {
  const data = {
    type: "object",
    required: ["schemas", "providers"],
    properties: {
      schemas: { type: "object", additionalProperties: { type: "object" } },
      providers: { type: "array", items: { type: "object" } },
    },
  };
  return {
    operationId: "list_operations",
    summary: "The catalogue of operations",
    description:
      "Every provider and operation with its auth mode, lifecycle, version, input and output JSON Schema, example and " +
      'resource paths; `schemas` holds the schemas they refer to by name (`{"$ref": "JsonValue"}`). Any valid key may read it.',
    tags: ["platform"],
    "x-lifecycle": "stable",
    "x-operation-version": "1.0.0",
    "x-connection-required": false,
    "x-auth-mode": "none",
    responses: { "200": successResponse(data, false), ...errorResponsesOf(["401", "429", "500"], false) },
  };
}

export function buildOpenApiDocument(registry: Registry, serverUrl: string) {
  const paths: Record<string, unknown> = { "/v1/operations": { get: catalogueOperation() } };
  for (const provider of registry.providers) {
    for (const operation of provider.operations) {
      paths[`/v1/${provider.id}/${operation.id}`] = { post: operationObject(provider, operation) };
    }
    for (const alias of provider.aliases ?? []) {
      const operation = provider.operations.find((o) => o.id === alias.operation);
      if (!operation) continue;
      const path = aliasPublicPath(provider.id, alias);
      paths[path] = {
        ...(paths[path] as object),
        [alias.method.toLowerCase()]: operationObject(provider, operation, alias),
      };
    }
  }
  const schemas: Record<string, unknown> = { ...sharedSchemas };
  for (const shared of registry.namedSchemas) {
    const { $id, ...rest } = shared as TSchema & { $id: string };
    schemas[$id] = toOpenApiSchema(rest);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Provider Gateway API",
      version: "7",
      description:
        "One HTTP JSON interface to many providers. Every operation is `POST /v1/{provider_id}/{operation_id}` with a JSON body, answered with `{data, meta, pagination}` or the error envelope.",
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: serverUrl }],
    security: [{ bearerAuth: [] }],
    tags: registry.providers.map((p) => ({ name: p.id, description: `${p.title}: ${p.description}` })),
    paths,
    components: { ...sharedComponents, schemas },
  };
}
