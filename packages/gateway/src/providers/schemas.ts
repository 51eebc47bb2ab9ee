// Schema building blocks shared by provider manifests.
import { type TProperties, type TSchema, Type } from "@sinclair/typebox";

/** An input object that refuses unknown properties (every operation's input is strict). */
export const StrictObject = <T extends TProperties>(properties: T, options: { description?: string } = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });

export const Cursor = Type.String({
  minLength: 1,
  maxLength: 512,
  description: "Cursor from a previous page's `pagination.next_cursor`.",
});
export const Limit = Type.Integer({ minimum: 1, maximum: 100, default: 20, description: "Page size, 1 to 100." });

export const Money = Type.Object(
  {
    amount: Type.Integer({ description: "Integer in the currency's display units. JPY has no minor unit." }),
    currency: Type.String({ pattern: "^[A-Z]{3}$", description: "ISO 4217 code (JPY)." }),
  },
  { additionalProperties: false },
);

/** The recursive generic JSON value of the seed (catalogue responses). */
export const JsonValue: TSchema = Type.Recursive(
  (Self) =>
    Type.Union([
      Type.String(),
      Type.Number(),
      Type.Boolean(),
      Type.Null(),
      Type.Array(Self),
      Type.Record(Type.String(), Self),
    ]),
  { $id: "JsonValue", title: "JsonValue" },
);

/** Schemas with an `$id`, referenced with Type.Ref: added once to the validator and to the OpenAPI components. */
export const sharedSchemas: TSchema[] = [JsonValue];

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
