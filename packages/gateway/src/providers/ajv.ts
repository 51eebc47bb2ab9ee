// The one way the gateway builds a JSON Schema validator: operations' inputs and outputs, and upstream answers.
import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export function createAjv(options: { allErrors?: boolean } = {}): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true, coerceTypes: false, ...options });
  addFormats(ajv);
  return ajv;
}
