// Resource aliases of a provider (types.ts ResourceAlias): the path parameters of an alias, and the checks the registry
// runs on every alias at start, so that a malformed one fails loudly instead of shadowing or never validating.
import type { TSchema } from "@sinclair/typebox";
import type { ProviderDefinition, ResourceAlias } from "./types.ts";

const segmentPattern = /^(:[a-z][a-z0-9_]*|[a-z][a-z0-9_-]*)$/;

/** The `:name` parameters of an alias path, in order. */
export const aliasParams = (path: string): string[] =>
  path
    .split("/")
    .filter((segment) => segment.startsWith(":"))
    .map((segment) => segment.slice(1));

/** The alias path in OpenAPI's template syntax: `/reservations/{reservation_id}`. */
const openApiPath = (path: string): string => path.replace(/:([a-z][a-z0-9_]*)/g, "{$1}");

/** The alias's public path, with `{name}` parameters: `/v1/dining/reservations/{reservation_id}`. */
export const aliasPublicPath = (providerId: string, alias: ResourceAlias): string =>
  `/v1/${providerId}${openApiPath(alias.path)}`;

function problemsOf(provider: ProviderDefinition, alias: ResourceAlias, seen: Set<string>): string[] {
  const problems: string[] = [];
  const segments = alias.path.split("/").slice(1);
  if (!alias.path.startsWith("/") || segments.length === 0 || !segments.every((s) => segmentPattern.test(s))) {
    problems.push("the path must be /segment[/segment…] with lower-case names or :params");
  }
  const first = segments[0] ?? "";
  if (first.startsWith(":") || provider.operations.some((o) => o.id === first)) {
    problems.push(`the first segment must be a fixed name that is not an operation id (it would shadow one)`);
  }
  const operation = provider.operations.find((o) => o.id === alias.operation);
  if (!operation) return [...problems, `there is no operation ${alias.operation}`];
  const input = operation.input as TSchema & { properties?: Record<string, unknown>; required?: string[] };
  const params = aliasParams(alias.path);
  for (const param of params) {
    if (!input.properties?.[param]) problems.push(`:${param} is not an input property of ${alias.operation}`);
  }
  if (alias.method !== "POST") {
    const missing = (input.required ?? []).filter((name) => !params.includes(name));
    if (missing.length > 0) problems.push(`${alias.method} has no body, yet ${missing.join(", ")} is required`);
  }
  const key = `${alias.method} ${alias.path.replace(/:[a-z0-9_]+/g, ":")}`;
  if (seen.has(key)) problems.push("another alias has the same method and path");
  seen.add(key);
  return problems;
}

/** Throws when an alias of the provider is malformed, names an unknown operation or clashes. */
export function checkAliases(provider: ProviderDefinition): void {
  const seen = new Set<string>();
  for (const alias of provider.aliases ?? []) {
    const problems = problemsOf(provider, alias, seen);
    if (problems.length > 0) {
      throw new Error(
        `Alias ${alias.method} /v1/${provider.id}${alias.path} of ${provider.id}: ${problems.join("; ")}`,
      );
    }
  }
}
