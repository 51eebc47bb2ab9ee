// Queries on a hot path, compiled once: Kysely builds and compiles a query on every call, which costs about as much
// as running a small statement. The query is built with named placeholders where values go, compiled for the store's
// dialect, and then run with values for those names. Values written as constants in the builder stay constants.
import { type Compilable, CompiledQuery, type Kysely, type QueryResult } from "kysely";

const marker = "\u0000precompiled:";

export type Placeholder<Name extends string> = (name: Name) => never;

export function precompile<Name extends string, DB = unknown>(
  db: Kysely<DB>,
  build: (param: Placeholder<Name>) => Compilable,
): (values: Record<Name, unknown>) => Promise<QueryResult<unknown>> {
  const compiled = build((name) => `${marker}${name}` as never).compile();
  const slots = compiled.parameters.map((value) =>
    typeof value === "string" && value.startsWith(marker)
      ? { name: value.slice(marker.length) as Name }
      : { constant: value },
  );
  return (values) =>
    db.executeQuery(
      CompiledQuery.raw(
        compiled.sql,
        slots.map((slot) => ("name" in slot ? values[slot.name] : slot.constant)),
      ),
    );
}

/**
 * A query whose shape depends on how many values it takes (an `IN` list), compiled once per count: `build` is given
 * that many placeholders, and the returned function runs the statement for the count of the values it is called with.
 */
export function precompilePerCount<DB>(
  db: Kysely<DB>,
  build: (placeholders: never[]) => Compilable,
): (values: readonly unknown[]) => Promise<QueryResult<unknown>> {
  const byCount = new Map<number, (values: Record<string, unknown>) => Promise<QueryResult<unknown>>>();
  return (values) => {
    let statement = byCount.get(values.length);
    if (!statement) {
      statement = precompile<string, DB>(db, (p) => build(values.map((_, i) => p(String(i)))));
      byCount.set(values.length, statement);
    }
    // Placeholders are named by position: the array itself maps each name to its value.
    return statement(values as unknown as Record<string, unknown>);
  };
}
