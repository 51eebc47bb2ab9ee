// Schemas of the sandboxes' control settings.
import { Type } from "@sinclair/typebox";

/**
 * Milliseconds, or null for "only when told" (manual mode). One JSON Schema type list rather than a union: the
 * sandboxes' validator coerces types, and against a union it would turn 0 into null (null first) or null into 0
 * (the integer first); with a type list it coerces only a value that is neither.
 */
export const MillisecondsOrNull = () => Type.Unsafe<number | null>({ type: ["integer", "null"], minimum: 0 });
