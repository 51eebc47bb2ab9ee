// Keyset pagination of lists ordered newest first, shared by every such list (events, connections): an opaque cursor
// holding the (created_at, id) of the last item, the condition that resumes after it, and the page it yields.
import { type SelectQueryBuilder, sql } from "kysely";
import { invalidRequest } from "./errors.ts";

export interface Position {
  createdAt: number;
  id: string;
}

export interface Page<R> {
  items: R[];
  pagination: { next_cursor: string | null; has_more: boolean };
}

export const encodeCursor = (position: Position): string =>
  Buffer.from(JSON.stringify([position.createdAt, position.id])).toString("base64url");

export function decodeCursor(cursor: string): Position {
  try {
    const value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      Number.isSafeInteger(value[0]) &&
      typeof value[1] === "string" &&
      !value[1].includes("\u0000")
    ) {
      return { createdAt: value[0] as number, id: value[1] };
    }
  } catch {
    // fall through to the one error below
  }
  throw invalidRequest("The cursor is not one this list returned", [{ path: "/cursor", message: "is not valid" }]);
}

/** Reads one page of a single-table query (columns created_at and id), newest first, after the cursor. */
export async function newestFirstPage<DB, TB extends keyof DB, R extends { created_at: number; id: string }>(
  query: SelectQueryBuilder<DB, TB, R>,
  cursor: string | undefined,
  limit: number,
): Promise<Page<R>> {
  let resumed = query;
  if (cursor !== undefined) {
    const after = decodeCursor(cursor);
    resumed = query.where(
      sql<boolean>`(created_at < ${after.createdAt} or (created_at = ${after.createdAt} and id < ${after.id}))`,
    );
  }
  const rows = await resumed
    .orderBy(sql`created_at`, "desc")
    .orderBy(sql`id`, "desc")
    .limit(limit + 1)
    .execute();
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  const hasMore = rows.length > limit;
  return {
    items,
    pagination: {
      next_cursor: hasMore && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null,
      has_more: hasMore,
    },
  };
}
