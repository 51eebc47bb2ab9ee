// The one list of providers, and lookups with compiled validators. Adding a provider is one import and one line.
import type { TSchema } from "@sinclair/typebox";
import type { ErrorObject, ValidateFunction } from "ajv";
import type { FieldProblem } from "../core/errors.ts";
import { pointerToken } from "../core/json-text.ts";
import { createAjv } from "./ajv.ts";
import { checkAliases } from "./aliases.ts";
import { catalogProvider } from "./catalog/manifest.ts";
import { deliveryProvider } from "./delivery/manifest.ts";
import { diningProvider } from "./dining/manifest.ts";
import { homegoodsProvider } from "./homegoods/manifest.ts";
import { opendataProvider } from "./opendata/manifest.ts";
import { paymentsProvider } from "./payments/manifest.ts";
import { platformProvider } from "./platform/manifest.ts";
import { ridesProvider } from "./rides/manifest.ts";
import { patternMessages, sharedSchemas, validationForms } from "./schemas.ts";
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
  /** Every problem of an input at once (for a CLI's own message); a request's input goes through inputProblems. */
  validateInput: ValidateFunction;
  validateOutput: ValidateFunction;
  /**
   * The problems of a request's input: none for a valid one (its defaults then set), else every problem of its schema,
   * or, for an input of more than 10,000 values, its first problem only (`firstOnly`).
   */
  inputProblems(input: unknown): { problems: FieldProblem[]; firstOnly: boolean };
}

/**
 * An input of more values than this (a 1 MiB body can hold half a million) is judged by its first problem only.
 * Listing every problem costs a check and an answer line per value: seconds of the event loop, and hundreds of MB.
 */
const thoroughNodes = 10_000;

const valid = { problems: [], firstOnly: false };

/** Ajv's errors as problems, never none for a failed check (fieldProblems leaves out the anyOf/oneOf/if summaries). */
function problemsOf(errors: readonly ErrorObject[] | null | undefined): FieldProblem[] {
  const problems = fieldProblems(errors);
  return problems.length > 0 ? problems : [{ path: "", message: "is invalid" }];
}

export class Registry {
  readonly providers: readonly ProviderDefinition[];
  /** Every schema with an `$id` that operations may reference. */
  readonly namedSchemas: TSchema[];
  private readonly operations = new Map<string, CompiledOperation>();

  constructor(list: readonly ProviderDefinition[] = providers) {
    this.providers = list;
    const ajv = createAjv();
    const firstProblemAjv = createAjv({ allErrors: false });
    this.namedSchemas = [...sharedSchemas, ...list.flatMap((p) => p.schemas ?? [])];
    for (const schema of this.namedSchemas) {
      const form = validationForms.get(schema.$id as string) ?? schema;
      ajv.addSchema(form);
      firstProblemAjv.addSchema(form);
    }
    for (const provider of list) {
      checkAliases(provider);
      for (const operation of provider.operations) {
        const key = `${provider.id}:${operation.id}`;
        if (this.operations.has(key)) throw new Error(`Operation ${key} is defined twice`);
        const validateInput = ajv.compile(operation.input as TSchema);
        const firstProblem = firstProblemAjv.compile(operation.input as TSchema);
        this.operations.set(key, {
          provider,
          operation,
          validateInput,
          validateOutput: ajv.compile(operation.output as TSchema),
          inputProblems(input) {
            if (firstProblem(input)) return valid;
            if (hasMoreNodes(input, thoroughNodes))
              return { problems: problemsOf(firstProblem.errors), firstOnly: true };
            validateInput(input);
            return { problems: problemsOf(validateInput.errors), firstOnly: false };
          },
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

/** Whether a JSON value holds more than `limit` values (itself, its elements and properties, at every depth). */
function hasMoreNodes(value: unknown, limit: number): boolean {
  const pending: unknown[] = [value];
  let count = 0;
  while (pending.length > 0) {
    const next = pending.pop();
    if (++count > limit) return true;
    if (Array.isArray(next)) for (const item of next) pending.push(item);
    else if (next !== null && typeof next === "object")
      for (const key in next) pending.push((next as Record<string, unknown>)[key]);
  }
  return false;
}

/** Ajv's errors as the envelope's `details`: one entry per problem, JSON-pointer paths. */
export function fieldProblems(errors: readonly ErrorObject[] | null | undefined): FieldProblem[] {
  const relevant = (errors ?? []).filter((e) => !["anyOf", "oneOf", "if"].includes(e.keyword));
  // The values a field may take, from every `const` and `enum` that refused it: the alternatives of an anyOf (such
  // as "*" or an event type) make one problem listing them all, and the field is not also told its type.
  const allowedAt = new Map<string, string[]>();
  for (const e of relevant) {
    if (e.keyword !== "enum" && e.keyword !== "const") continue;
    const values = e.keyword === "enum" ? (e.params.allowedValues as unknown[]) : [e.params.allowedValue];
    allowedAt.set(e.instancePath, [...(allowedAt.get(e.instancePath) ?? []), ...values.map((v) => JSON.stringify(v))]);
  }
  const problems = relevant.flatMap((e): FieldProblem[] => {
    const params = e.params as Record<string, unknown>;
    const allowed = allowedAt.get(e.instancePath);
    if (e.keyword === "required") {
      return [{ path: `${e.instancePath}/${pointerToken(String(params.missingProperty))}`, message: "is required" }];
    }
    if (e.keyword === "additionalProperties") {
      return [
        {
          path: `${e.instancePath}/${pointerToken(String(params.additionalProperty))}`,
          message: "is not an allowed property",
        },
      ];
    }
    if (allowed && (e.keyword === "enum" || e.keyword === "const")) {
      return [
        { path: e.instancePath, message: `must be ${allowed.length === 1 ? "" : "one of "}${allowed.join(", ")}` },
      ];
    }
    if (allowed && e.keyword === "type") return [];
    // A pattern's own words (schemas.ts PatternString) rather than the regular expression.
    const worded = e.keyword === "pattern" ? patternMessages.get(String(params.pattern)) : undefined;
    return [{ path: e.instancePath, message: worded ?? e.message ?? "is invalid" }];
  });
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.path}\u0000${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
