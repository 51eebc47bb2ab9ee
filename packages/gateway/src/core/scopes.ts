// Scope grammar: "*" | "<provider_id>" | "<provider_id>:<operation_id>". A key may call an operation when one of
// its scopes covers it.
import { invalidRequest } from "./errors.ts";

const scopePattern = /^(\*|[a-z][a-z0-9_]*(:[a-z][a-z0-9_]*)?)$/;

export function parseScopes(input: readonly string[] | string): string[] {
  const list = typeof input === "string" ? input.split(/[\s,]+/).filter(Boolean) : [...input];
  if (list.length === 0)
    throw invalidRequest("At least one scope is required", [{ path: "/scopes", message: "empty" }]);
  const problems = list
    .map((scope, index) => ({ scope, index }))
    .filter(({ scope }) => !scopePattern.test(scope))
    .map(({ scope, index }) => ({
      path: `/scopes/${index}`,
      message: `"${scope}" is not a scope: use "*", "<provider_id>" or "<provider_id>:<operation_id>"`,
    }));
  if (problems.length > 0) throw invalidRequest("Invalid scopes", problems);
  return [...new Set(list)];
}

export function scopesAllow(scopes: readonly string[], providerId: string, operationId: string): boolean {
  return scopes.some((s) => s === "*" || s === providerId || s === `${providerId}:${operationId}`);
}

/** True when every scope of `requested` is covered by `granted` (delegation tokens take a subset). */
export function scopesWithin(requested: readonly string[], granted: readonly string[]): boolean {
  return requested.every((scope) => {
    if (granted.includes("*")) return true;
    if (scope === "*") return false;
    const [provider, operation] = scope.split(":") as [string, string | undefined];
    return granted.includes(provider) || (operation !== undefined && granted.includes(scope));
  });
}
