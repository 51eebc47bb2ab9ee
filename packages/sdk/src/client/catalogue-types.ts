// The catalogue served at GET /v1/operations (client.operations()): every provider and operation, with schemas.

export interface CatalogueOperation {
  id: string;
  /** `/v1/{provider_id}/{operation_id}` */
  path: string;
  summary: string;
  description: string | null;
  auth_mode: "none" | "credentials";
  connection_required: boolean;
  /** A read-only POST: safe to repeat without an Idempotency-Key. */
  read_only: boolean;
  /** A call without input is refused: a field is required, or a rule needs one of several (`recommend_products`). */
  input_required: boolean;
  lifecycle: "stable" | "beta" | "deprecated" | (string & {});
  version: string;
  input_schema: Record<string, unknown>;
  output_schema: Record<string, unknown>;
  example: { input: unknown; output: unknown };
  /**
   * Resource paths that run this operation besides `path`, with the same input, answer and errors; `{name}` segments
   * carry input fields (e.g. `GET /v1/dining/reservations/{reservation_id}`).
   */
  aliases: { method: "GET" | "POST" | "DELETE"; path: string }[];
}

export interface CatalogueProvider {
  id: string;
  title: string;
  description: string;
  operations: CatalogueOperation[];
}

export interface OperationsCatalogue {
  /** The schemas operations' schemas refer to by name (`{"$ref": "JsonValue"}`), by that name. */
  schemas: Record<string, Record<string, unknown>>;
  providers: CatalogueProvider[];
}
