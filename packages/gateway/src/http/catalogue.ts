// The machine-readable catalogue behind GET /v1/operations: every provider and operation with its schemas, and the
// resource paths (aliases) that run it besides its uniform route.

import type { Clock } from "../core/clock.ts";
import { aliasPublicPath } from "../providers/aliases.ts";
import type { Registry } from "../providers/registry.ts";
import { inputRequired } from "../providers/types.ts";

/**
 * The catalogue's answer in the success envelope, as every 200: the catalogue serialised once, the time it is answered
 * at each request. GET /v1/operations and the console's copy of it both answer this.
 */
export function catalogueAnswer(registry: Registry, clock: Clock): () => string {
  const data = JSON.stringify(catalogue(registry));
  return () =>
    `{"data":${data},"meta":{"source":"platform","fetched_at":"${new Date(clock.now()).toISOString()}"},"pagination":null}`;
}

export function catalogue(registry: Registry) {
  return {
    /** Schemas referenced by `$ref` from operations' schemas (e.g. "JsonValue"), by their `$id`. */
    schemas: Object.fromEntries(registry.namedSchemas.map((schema) => [schema.$id as string, schema])),
    providers: registry.providers.map((provider) => ({
      id: provider.id,
      title: provider.title,
      description: provider.description,
      operations: provider.operations.map((operation) => ({
        id: operation.id,
        path: `/v1/${provider.id}/${operation.id}`,
        summary: operation.summary,
        description: operation.description ?? null,
        auth_mode: operation.auth,
        connection_required: operation.auth === "credentials",
        read_only: operation.readOnly,
        lifecycle: operation.lifecycle,
        version: operation.version,
        input_required: inputRequired(operation),
        input_schema: operation.input,
        output_schema: operation.output,
        example: operation.example,
        aliases: (provider.aliases ?? [])
          .filter((alias) => alias.operation === operation.id)
          .map((alias) => ({ method: alias.method, path: aliasPublicPath(provider.id, alias) })),
      })),
    })),
  };
}
