// Schema building blocks shared by provider manifests.
import { type StringOptions, type TProperties, type TSchema, Type } from "@sinclair/typebox";

/** An input object that refuses unknown properties (every operation's input is strict). */
export const StrictObject = <T extends TProperties>(properties: T, options: { description?: string } = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });

/** What a 400 says of a value a pattern refuses, by pattern: a regular expression is no message for a caller. */
export const patternMessages = new Map<string, string>();

/**
 * A string of a pattern, with the words a 400 uses for a value that does not match it (the message after the field's
 * path, e.g. "must be 7 digits"). One pattern has one message wherever it is used.
 */
export function PatternString(pattern: string, message: string, options: StringOptions = {}) {
  const known = patternMessages.get(pattern);
  if (known !== undefined && known !== message) {
    throw new Error(`The pattern ${pattern} is given two messages: "${known}" and "${message}"`);
  }
  patternMessages.set(pattern, message);
  return Type.String({ ...options, pattern });
}

/** Letters, digits, "_" and "-", as most providers' ids are. */
export const IdString = (description: string) =>
  PatternString("^[A-Za-z0-9_-]{1,64}$", "must be 1 to 64 letters, digits, underscores or hyphens", { description });

/** A word of a search filter (an area, a cuisine): lower-case letters and underscores. */
export const WordString = (description: string) =>
  PatternString("^[a-z_]{1,40}$", "must be 1 to 40 lower-case letters or underscores", { description });

/** Text that must say something: not empty, and not only spaces. */
export const notBlank = "must contain something other than spaces";

export const Cursor = Type.String({
  minLength: 1,
  maxLength: 512,
  description: "Cursor from a previous page's `pagination.next_cursor`.",
});
export const Limit = Type.Integer({ minimum: 1, maximum: 100, default: 20, description: "Page size, 1 to 100." });

/**
 * The number a stateful upstream raises with every change of a resource (a revision, a version, a sequence number): a
 * whole number the gateway can compare exactly, so no larger than 2^53 - 1. One past it (1e300, a string) would leave
 * the copy unable to take any later change.
 */
export const Revision = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

export const Money = Type.Object(
  {
    amount: Type.Integer({
      minimum: 0,
      description: "Integer in the currency's display units. JPY has no minor unit.",
    }),
    currency: PatternString("^[A-Z]{3}$", "must be 3 capital letters (ISO 4217)", {
      description: "ISO 4217 code (JPY).",
    }),
  },
  { additionalProperties: false },
);

/** A JSON value as TypeScript sees it. */
type JsonValueType = string | number | boolean | null | JsonValueType[] | { [key: string]: JsonValueType };

const jsonTypes = ["string", "number", "boolean", "null", "array", "object"];

/** The recursive generic JSON value (catalogue responses), as documented and typed. */
export const JsonValue: TSchema = Type.Unsafe<JsonValueType>({
  $id: "JsonValue",
  title: "JsonValue",
  type: [...jsonTypes],
  items: { $ref: "JsonValue" },
  additionalProperties: { $ref: "JsonValue" },
});

/**
 * What the validators check of a JsonValue: its top-level type only. Below the top there is nothing a deep check could
 * find: an input was parsed from JSON, an output is serialized with JSON.stringify, and both can only be JSON values.
 * The deep form walks every node of every catalogue answer, building a path string and an options object per node:
 * 8 KB of the 48 KB a catalog:product_detail request allocated (17 KB of 57 KB as an `anyOf` of the six types).
 */
const JsonValueCheck: TSchema = Type.Unsafe({ $id: "JsonValue", type: [...jsonTypes] });

/** Schemas with an `$id`, referenced with Type.Ref: added once to the validator and to the OpenAPI components. */
export const sharedSchemas: TSchema[] = [JsonValue];

/** The form the validators use of a shared schema, where it differs from the documented one (by `$id`). */
export const validationForms: ReadonlyMap<string, TSchema> = new Map([["JsonValue", JsonValueCheck]]);

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
