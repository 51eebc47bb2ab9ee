// The machine-readable catalogue behind GET /v1/operations: every provider and operation with its schemas, and the
// resource paths (aliases) that run it besides its uniform route.
import { aliasPublicPath } from "../providers/aliases.ts";
import type { Registry } from "../providers/registry.ts";

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
