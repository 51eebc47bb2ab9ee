// Scope grammar: "*" | "<provider_id>" | "<provider_id>:<operation_id>". A key may call an operation when one of
// its scopes covers it. A scope names a provider and operation of this gateway: a misspelt one would make a key that
// can call nothing it was meant to, so it is refused when the key is made.
import { type FieldProblem, invalidRequest } from "./errors.ts";

/** The providers a scope may name, with their operations (the registry's list, or the manifests themselves). */
export type ScopeTargets = readonly { id: string; operations: readonly { id: string }[] }[];

export const scopePattern = /^(\*|[a-z][a-z0-9_]*(:[a-z][a-z0-9_]*)?)$/;

export function parseScopes(input: readonly string[] | string, targets: ScopeTargets): string[] {
  const list = typeof input === "string" ? input.split(/[\s,]+/).filter(Boolean) : [...input];
  if (list.length === 0) {
    throw invalidRequest("At least one scope is required", [
      { path: "/scopes", message: 'no scope was given: use "*", "<provider_id>" or "<provider_id>:<operation_id>"' },
    ]);
  }
  const problems = list.flatMap((scope, index) => {
    const message = scopeProblem(scope, targets);
    return message === undefined ? [] : [{ path: `/scopes/${index}`, message }];
  });
  if (problems.length > 0) throw invalidRequest("Invalid scopes", problems);
  return [...new Set(list)];
}

function scopeProblem(scope: string, targets: ScopeTargets): string | undefined {
  if (!scopePattern.test(scope)) {
    return `"${scope}" is not a scope: use "*", "<provider_id>" or "<provider_id>:<operation_id>"`;
  }
  return targetProblem(scope, targets);
}

/** What is wrong with a well-formed scope's provider or operation, if anything. */
function targetProblem(scope: string, targets: ScopeTargets): string | undefined {
  if (scope === "*") return undefined;
  const [providerId, operationId] = scope.split(":") as [string, string | undefined];
  const provider = targets.find((candidate) => candidate.id === providerId);
  if (!provider) return `"${scope}": there is no provider "${providerId}"; GET /v1/operations lists them`;
  if (operationId !== undefined && !provider.operations.some((operation) => operation.id === operationId)) {
    return `"${scope}": the ${providerId} provider has no operation "${operationId}"`;
  }
  return undefined;
}

/** The problems of the well-formed scopes of a list (of any values) that name a provider or operation this gateway
 * does not have: what a schema with the scope pattern leaves to find. */
export function unknownScopeTargets(list: readonly unknown[], targets: ScopeTargets): FieldProblem[] {
  return list.flatMap((scope, index) => {
    const message = typeof scope === "string" && scopePattern.test(scope) ? targetProblem(scope, targets) : undefined;
    return message === undefined ? [] : [{ path: `/scopes/${index}`, message }];
  });
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
