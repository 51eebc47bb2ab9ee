// What the console reads from the operation catalogue (the same one as GET /v1/operations): scopes to offer,
// providers that take connections, and the event types an endpoint may subscribe to.
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Catalogue, CatalogueOperation, JsonSchema } from "./api.ts";

/** The catalogue, and whether it has been read yet (until then, no provider listed means nothing). */
export type LoadedCatalogue = Catalogue & { loaded: boolean };

export const CatalogueContext = createContext<LoadedCatalogue>({ providers: [], loaded: false });
export const useCatalogue = () => useContext(CatalogueContext);

export const connectableProviders = (catalogue: Catalogue) =>
  catalogue.providers.filter((p) => p.operations.some((o) => o.auth_mode === "credentials"));

export function platformOperation(catalogue: Catalogue, id: string): CatalogueOperation | undefined {
  return catalogue.providers.find((p) => p.id === "platform")?.operations.find((o) => o.id === id);
}

/** Every string enum value found under a schema (event_types: an array of `"*"` or an enumerated type). */
function enumValues(schema: JsonSchema | undefined): string[] {
  if (!schema) return [];
  const own = (schema.enum ?? []).filter((v): v is string => typeof v === "string");
  return [...own, ...enumValues(schema.items), ...(schema.anyOf ?? []).flatMap(enumValues)];
}

export function eventTypes(catalogue: Catalogue): string[] {
  const schema = platformOperation(catalogue, "set_webhook_endpoint")?.input_schema.properties?.event_types;
  return [...new Set(enumValues(schema))].filter((t) => t !== "*");
}
