// The one list of providers, and lookups with compiled validators. Adding a provider is one import and one line.
import type { TSchema } from "@sinclair/typebox";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import type { FieldProblem } from "../core/errors.ts";
import { checkAliases } from "./aliases.ts";
import { catalogProvider } from "./catalog/manifest.ts";
import { deliveryProvider } from "./delivery/manifest.ts";
import { diningProvider } from "./dining/manifest.ts";
import { homegoodsProvider } from "./homegoods/manifest.ts";
import { opendataProvider } from "./opendata/manifest.ts";
import { paymentsProvider } from "./payments/manifest.ts";
import { platformProvider } from "./platform/manifest.ts";
import { ridesProvider } from "./rides/manifest.ts";
import { sharedSchemas, validationForms } from "./schemas.ts";
import { shoppingProvider } from "./shopping/manifest.ts";
import type { OperationDefinition, ProviderDefinition } from "./types.ts";

export const providers: readonly ProviderDefinition[] = [
  platformProvider,
  catalogProvider,
  homegoodsProvider,
  opendataProvider,
  shoppingProvider,
  diningProvider,
  deliveryProvider,
  ridesProvider,
  paymentsProvider,
];

export interface CompiledOperation {
  provider: ProviderDefinition;
  operation: OperationDefinition;
  validateInput: ValidateFunction;
  validateOutput: ValidateFunction;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export function createAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true, coerceTypes: false });
  addFormats(ajv);
  return ajv;
}

/** The providers' manifests looked up by id, without compiling their schemas (what the CLI needs to check scopes). */
export const manifests = {
  provider: (providerId: string) => providers.find((provider) => provider.id === providerId),
};

export class Registry {
  readonly providers: readonly ProviderDefinition[];
  /** Every schema with an `$id` that operations may reference. */
  readonly namedSchemas: TSchema[];
  private readonly operations = new Map<string, CompiledOperation>();

  constructor(list: readonly ProviderDefinition[] = providers) {
    this.providers = list;
    const ajv = createAjv();
    this.namedSchemas = [...sharedSchemas, ...list.flatMap((p) => p.schemas ?? [])];
    for (const schema of this.namedSchemas) ajv.addSchema(validationForms.get(schema.$id as string) ?? schema);
    for (const provider of list) {
      checkAliases(provider);
      for (const operation of provider.operations) {
        const key = `${provider.id}:${operation.id}`;
        if (this.operations.has(key)) throw new Error(`Operation ${key} is defined twice`);
        this.operations.set(key, {
          provider,
          operation,
          validateInput: ajv.compile(operation.input as TSchema),
          validateOutput: ajv.compile(operation.output as TSchema),
        });
      }
    }
  }

  provider(providerId: string): ProviderDefinition | undefined {
    return this.providers.find((p) => p.id === providerId);
  }

  operation(providerId: string, operationId: string): CompiledOperation | undefined {
    return this.operations.get(`${providerId}:${operationId}`);
  }

  all(): CompiledOperation[] {
    return [...this.operations.values()];
  }
}

/** Ajv's errors as the envelope's `details`: one entry per problem, JSON-pointer paths. */
export function fieldProblems(errors: readonly ErrorObject[] | null | undefined): FieldProblem[] {
  // The values a field may take, gathered from every `const` and `enum` that refused it: the alternatives of an
  // anyOf (such as "*" or an event type) make one problem listing them all.
  const allowedAt = new Map<string, string[]>();
  const problems = (errors ?? [])
    .filter((e) => !["anyOf", "oneOf", "if"].includes(e.keyword))
    .map((e) => {
      const params = e.params as Record<string, unknown>;
      if (e.keyword === "required") {
        return { path: `${e.instancePath}/${String(params.missingProperty)}`, message: "is required" };
      }
      if (e.keyword === "enum" || e.keyword === "const") {
        const values = e.keyword === "enum" ? (params.allowedValues as unknown[]) : [params.allowedValue];
        const allowed = allowedAt.get(e.instancePath) ?? [];
        allowed.push(...values.map((v) => JSON.stringify(v)));
        allowedAt.set(e.instancePath, allowed);
        return { path: e.instancePath, message: "" };
      }
      if (e.keyword === "additionalProperties") {
        return {
          path: `${e.instancePath}/${String(params.additionalProperty)}`,
          message: "is not an allowed property",
        };
      }
      if (e.keyword === "type") return { path: e.instancePath, message: e.message ?? "is invalid", type: true };
      return { path: e.instancePath, message: e.message ?? "is invalid" };
    })
    // A field with a list of allowed values is told that list, not also its type.
    .filter((problem) => !("type" in problem && allowedAt.has(problem.path)))
    .map((problem) => {
      if (problem.message !== "") return { path: problem.path, message: problem.message };
      const allowed = allowedAt.get(problem.path) ?? [];
      return { path: problem.path, message: `must be ${allowed.length === 1 ? "" : "one of "}${allowed.join(", ")}` };
    });
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.path}\u0000${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
