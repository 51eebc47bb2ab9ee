// Turns the JSON Schema subset that TypeBox emits into TypeScript type expressions: objects, arrays and tuples,
// unions and intersections, enums and consts, nullable, records, and references to named (`$id`) schemas, recursive
// ones included. Anything outside the subset becomes `unknown`, which is always safe for a response type.

export type JsonSchema = boolean | { [keyword: string]: unknown };

export interface TypeNames {
  /** The TypeScript name of the schema whose `$id` (or bare `$ref`) is `id`; throws for an unknown one. */
  nameOf(id: string): string;
}

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A type expression for `schema`, indented for nesting at `indent` (the column of the enclosing declaration). */
export function schemaToType(schema: JsonSchema, names: TypeNames, indent = ""): string {
  if (schema === true) return "unknown";
  if (schema === false) return "never";
  if (typeof schema.$ref === "string") return names.nameOf(refId(schema.$ref));
  // A schema with an `$id` (TypeBox's Type.Recursive) is declared once under its own name.
  if (typeof schema.$id === "string") return names.nameOf(refId(schema.$id));

  if (Array.isArray(schema.allOf)) {
    const own = withoutKeywords(schema, ["allOf", "type"]);
    const parts = (schema.allOf as JsonSchema[]).map((member) => schemaToType(member, names, indent));
    if (hasObjectKeywords(own)) parts.push(objectType(own, names, indent));
    return joinTypes(parts, " & ");
  }
  for (const keyword of ["anyOf", "oneOf"]) {
    const members = schema[keyword];
    if (Array.isArray(members))
      return joinTypes(
        members.map((m: JsonSchema) => schemaToType(m, names, indent)),
        " | ",
      );
  }
  if ("const" in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) return joinTypes(schema.enum.map(literal), " | ");

  const type = schema.type;
  if (Array.isArray(type)) {
    return joinTypes(
      type.map((t: unknown) => schemaToType({ ...schema, type: t }, names, indent)),
      " | ",
    );
  }
  switch (type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array":
      return arrayType(schema, names, indent);
    case "object":
      return objectType(schema, names, indent);
    default:
      return hasObjectKeywords(schema) ? objectType(schema, names, indent) : "unknown";
  }
}

/** TypeBox writes `Type.Ref("X")` as `$ref: "X"`; OpenAPI-style `#/components/schemas/X` and `#/$defs/X` work too. */
export function refId(ref: string): string {
  const slash = ref.lastIndexOf("/");
  return ref.startsWith("#") && slash >= 0 ? decodeURIComponent(ref.slice(slash + 1)) : ref;
}

function arrayType(schema: Record<string, unknown>, names: TypeNames, indent: string): string {
  const items = schema.prefixItems ?? schema.items;
  if (Array.isArray(items)) {
    const members = items.map((item: JsonSchema) => schemaToType(item, names, indent));
    const rest = schema.additionalItems === false || schema.items === false ? [] : ["...unknown[]"];
    if (schema.prefixItems !== undefined && schema.items !== undefined && schema.items !== false) {
      rest.splice(0, rest.length, `...${wrap(schemaToType(schema.items as JsonSchema, names, indent))}[]`);
    }
    return `[${[...members, ...rest].join(", ")}]`;
  }
  const element = items === undefined ? "unknown" : schemaToType(items as JsonSchema, names, indent);
  return `${wrap(element)}[]`;
}

function objectType(schema: Record<string, unknown>, names: TypeNames, indent: string): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const inner = `${indent}  `;
  const lines: string[] = [];
  for (const [key, property] of Object.entries(properties)) {
    const doc = describe(property);
    if (doc) lines.push(`${inner}/** ${doc} */`);
    const name = identifier.test(key) ? key : JSON.stringify(key);
    // An optional property may also be given as undefined (JSON.stringify leaves it out), so that callers compiled with
    // exactOptionalPropertyTypes can pass `{ cursor }` with a cursor that may be undefined.
    const type = schemaToType(property, names, inner);
    lines.push(`${inner}${name}${required.has(key) ? `: ${type}` : `?: ${type} | undefined`};`);
  }
  const index = indexSignatureType(schema, names, inner);
  if (index !== undefined) {
    // An index signature must admit every named property's type, so it widens to unknown next to properties.
    lines.push(`${inner}[key: string]: ${lines.length > 0 ? "unknown" : index};`);
  }
  if (lines.length === 0)
    return schema.additionalProperties === false ? "Record<string, never>" : "Record<string, unknown>";
  return `{\n${lines.join("\n")}\n${indent}}`;
}

function indexSignatureType(schema: Record<string, unknown>, names: TypeNames, indent: string): string | undefined {
  const values: string[] = [];
  if (schema.patternProperties && typeof schema.patternProperties === "object") {
    for (const value of Object.values(schema.patternProperties as Record<string, JsonSchema>)) {
      values.push(schemaToType(value, names, indent));
    }
  }
  const additional = schema.additionalProperties;
  if (additional !== undefined && additional !== false) {
    values.push(additional === true ? "unknown" : schemaToType(additional as JsonSchema, names, indent));
  } else if (additional === undefined && values.length === 0 && schema.properties === undefined) {
    // `Type.Object({})` without additionalProperties: false, or a bare `{type: "object"}`: any object.
    values.push("unknown");
  }
  return values.length === 0 ? undefined : joinTypes(values, " | ");
}

function hasObjectKeywords(schema: Record<string, unknown>): boolean {
  return ["properties", "patternProperties", "additionalProperties", "required"].some((k) => k in schema);
}

function withoutKeywords(schema: Record<string, unknown>, keywords: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(schema).filter(([key]) => !keywords.includes(key)));
}

/** The description of a property for its doc comment, with the format appended (`date-time` is worth knowing). */
function describe(schema: JsonSchema): string | undefined {
  if (typeof schema !== "object") return undefined;
  const parts: string[] = [];
  if (typeof schema.description === "string" && schema.description.trim() !== "") {
    const text = schema.description.trim();
    parts.push(/[.!?:)`]$/.test(text) ? text : `${text}.`);
  }
  if (typeof schema.format === "string") parts.push(`Format: ${schema.format}.`);
  if (schema.default !== undefined) parts.push(`Default: ${JSON.stringify(schema.default)}.`);
  const text = parts
    .join(" ")
    .replaceAll("*/", "*\\/")
    .replace(/\s*\n\s*/g, " ");
  return text === "" ? undefined : text;
}

function literal(value: unknown): string {
  return value === undefined ? "undefined" : JSON.stringify(value);
}

function joinTypes(parts: string[], separator: " | " | " & "): string {
  const unique = [...new Set(parts)];
  if (unique.length === 0) return separator === " | " ? "never" : "unknown";
  if (unique.length === 1) return unique[0] as string;
  if (separator === " | " && unique.includes("unknown")) return "unknown";
  return unique.map((part) => (separator === " & " && topLevel(part, "|") ? `(${part})` : part)).join(separator);
}

/** Parenthesises a union or intersection before `[]`. */
function wrap(type: string): string {
  return topLevel(type, "|") || topLevel(type, "&") ? `(${type})` : type;
}

/** Whether ` | ` (or ` & `) occurs outside braces, brackets, parentheses and string literals. */
function topLevel(type: string, operator: "|" | "&"): boolean {
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < type.length; i++) {
    const char = type[i];
    if (quoted) {
      if (char === "\\") i++;
      else if (char === '"') quoted = false;
    } else if (char === '"') quoted = true;
    else if (char === "{" || char === "[" || char === "(" || char === "<") depth++;
    else if (char === "}" || char === "]" || char === ")" || char === ">") depth--;
    else if (depth === 0 && char === operator && type[i - 1] === " " && type[i + 1] === " ") return true;
  }
  return false;
}
