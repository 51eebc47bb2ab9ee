// The schema converter on the JSON Schema TypeBox emits, and the renderer's naming and refusals.
import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { type CatalogueOperation, renderOperations } from "../scripts/codegen/render-operations.ts";
import { type JsonSchema, schemaToType } from "../scripts/codegen/schema-to-type.ts";

const names = {
  nameOf(id: string) {
    if (id === "Node" || id === "JsonValue") return id;
    throw new Error(`unknown ${id}`);
  },
};
const convert = (schema: unknown) => schemaToType(JSON.parse(JSON.stringify(schema)) as JsonSchema, names);

describe("schemaToType", () => {
  it("scalars, literals, enums and nullables", () => {
    expect(convert(Type.String())).toBe("string");
    expect(convert(Type.Integer())).toBe("number");
    expect(convert(Type.Boolean())).toBe("boolean");
    expect(convert(Type.Null())).toBe("null");
    expect(convert(Type.Literal("add_cart_item"))).toBe('"add_cart_item"');
    expect(convert(Type.Union([Type.Literal("a"), Type.Literal(2), Type.Literal(true)]))).toBe('"a" | 2 | true');
    expect(convert({ enum: ["x", "y"] })).toBe('"x" | "y"');
    expect(convert({ type: ["string", "null"] })).toBe("string | null");
    expect(convert(Type.Union([Type.String(), Type.Null()]))).toBe("string | null");
    expect(convert(Type.Unknown())).toBe("unknown");
    expect(convert(Type.Union([Type.String(), Type.Unknown()]))).toBe("unknown");
  });

  it("arrays and tuples, parenthesising unions", () => {
    expect(convert(Type.Array(Type.String()))).toBe("string[]");
    expect(convert(Type.Array(Type.Union([Type.String(), Type.Number()])))).toBe("(string | number)[]");
    expect(convert(Type.Tuple([Type.String(), Type.Number()]))).toBe("[string, number]");
    expect(convert({ type: "array" })).toBe("unknown[]");
  });

  it("objects: required and optional, quoted keys, doc comments, closed, open and records", () => {
    const schema = Type.Object(
      {
        id: Type.String({ description: "The id" }),
        "two words": Type.Optional(Type.Integer({ default: 20 })),
        at: Type.String({ format: "date-time" }),
      },
      { additionalProperties: false },
    );
    expect(convert(schema)).toBe(
      [
        "{",
        "  /** The id. */",
        "  id: string;",
        "  /** Default: 20. */",
        '  "two words"?: number | undefined;',
        "  /** Format: date-time. */",
        "  at: string;",
        "}",
      ].join("\n"),
    );
    expect(convert(Type.Object({}, { additionalProperties: false }))).toBe("Record<string, never>");
    expect(convert({ type: "object" })).toBe("{\n  [key: string]: unknown;\n}");
    expect(convert(Type.Record(Type.String(), Type.Number()))).toBe("{\n  [key: string]: number;\n}");
    expect(
      convert({ type: "object", properties: { a: { type: "string" } }, additionalProperties: { type: "number" } }),
    ).toBe("{\n  a?: string | undefined;\n  [key: string]: unknown;\n}");
  });

  it("intersections, references and recursive schemas by name", () => {
    const a = Type.Object({ a: Type.String() });
    const b = Type.Object({ b: Type.Union([Type.String(), Type.Null()]) });
    expect(convert(Type.Intersect([a, b]))).toBe("{\n  a: string;\n} & {\n  b: string | null;\n}");
    expect(convert(Type.Ref("JsonValue"))).toBe("JsonValue");
    expect(convert({ $ref: "#/components/schemas/Node" })).toBe("Node");
    const node = Type.Recursive((Self) => Type.Object({ children: Type.Array(Self) }), { $id: "Node" });
    expect(convert(Type.Object({ root: node }))).toBe("{\n  root: Node;\n}");
    expect(() => convert(Type.Ref("Missing"))).toThrow(/unknown Missing/);
  });

  it("nests indentation", () => {
    const schema = Type.Object({ outer: Type.Object({ inner: Type.Object({ x: Type.Number() }) }) });
    expect(convert(schema)).toBe("{\n  outer: {\n    inner: {\n      x: number;\n    };\n  };\n}");
  });
});

function operation(id: string, extra: Partial<CatalogueOperation> = {}): CatalogueOperation {
  const empty = { type: "object", properties: {}, additionalProperties: false };
  return {
    id,
    summary: "Does it",
    description: null,
    auth_mode: "none",
    read_only: true,
    input_required: false,
    input_schema: empty,
    output_schema: empty,
    ...extra,
  };
}

describe("renderOperations", () => {
  it("names types and methods from the ids and hoists named schemas", () => {
    const recursive = Type.Recursive((Self) => Type.Object({ kids: Type.Array(Self) }), { $id: "tree_node" });
    const source = renderOperations({
      namedSchemas: [],
      providers: [
        {
          id: "dining",
          title: "Dining",
          operations: [
            operation("create_reservation", {
              auth_mode: "credentials",
              read_only: false,
              input_required: true,
              input_schema: { type: "object", required: ["slot_id"], properties: { slot_id: { type: "string" } } },
              output_schema: JSON.parse(JSON.stringify(Type.Object({ tree: recursive }))),
            }),
            // Required although its schema names no required field (a rule needs one of two): the catalogue says so.
            operation("find_tables", { input_required: true }),
            operation("list_venues"),
          ],
        },
      ],
    });
    expect(source).toContain("export interface TreeNode {\n  kids: TreeNode[];\n}");
    expect(source).toContain("export interface DiningCreateReservationOutput {\n  tree: TreeNode;\n}");
    expect(source).toContain(
      "createReservation(input: DiningCreateReservationInput, options?: CallOptions): Promise<OperationResponse<DiningCreateReservationOutput>>;",
    );
    expect(source).toContain(
      "findTables(input: DiningFindTablesInput, options?: CallOptions): Promise<OperationResponse<DiningFindTablesOutput>>;",
    );
    expect(source).toContain(
      "listVenues(input?: DiningListVenuesInput, options?: CallOptions): Promise<OperationResponse<DiningListVenuesOutput>>;",
    );
    expect(source).toContain(
      'create_reservation: { method: "createReservation", auth: "credentials", readOnly: false, createsState: true },',
    );
    expect(source).toContain("export type GeneratedEventObjects = {};");
  });

  it("types event objects from the get_… operation, unwrapping a single-resource answer", () => {
    const reservation = Type.Object({ id: Type.String(), status: Type.String() });
    const source = renderOperations({
      namedSchemas: [],
      providers: [
        {
          id: "dining",
          title: "Dining",
          operations: [
            operation("get_reservation", { output_schema: JSON.parse(JSON.stringify(Type.Object({ reservation }))) }),
          ],
        },
      ],
    });
    expect(source).toContain('"reservation.confirmed": DiningGetReservationOutput["reservation"];');
    expect(source).toContain('"reservation.cancelled": DiningGetReservationOutput["reservation"];');
  });

  it("refuses a provider id that would shadow a client member, and duplicate method names", () => {
    const provider = (id: string, ops: CatalogueOperation[]) => ({
      namedSchemas: [],
      providers: [{ id, title: id, operations: ops }],
    });
    expect(() => renderOperations(provider("call", [operation("x")]))).toThrow(/cannot be a member/);
    expect(() => renderOperations(provider("p", [operation("get_x"), operation("get__x")]))).toThrow(/two operations/);
  });
});
