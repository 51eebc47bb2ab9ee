// Cursor pagination over upstreams that page by number: the cursor is an opaque token for the next page.
import { invalidRequest } from "../core/errors.ts";
import { decodeCursor, encodeCursor, type Page, type Position } from "../core/pagination.ts";
import type { Pagination } from "./types.ts";

export function encodePageCursor(page: number): string {
  return Buffer.from(JSON.stringify({ p: page })).toString("base64url");
}

/** The page a cursor points at (1 without a cursor); a cursor the gateway did not issue is a 400. */
export function pageFromCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 1;
  try {
    const { p } = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { p?: unknown };
    if (typeof p === "number" && Number.isInteger(p) && p >= 1) return p;
  } catch {
    // falls through to the error below
  }
  throw invalidRequest("The cursor is not one this gateway issued", [{ path: "/cursor", message: "is invalid" }]);
}

export function pagination(page: number, totalPages: number): Pagination {
  const hasMore = page < totalPages;
  return { next_cursor: hasMore ? encodePageCursor(page + 1) : null, has_more: hasMore };
}

/**
 * Cursor pagination over a list the upstream answers whole, oldest first by a time each item has (items of the same
 * time in the upstream's order), with the cursor of the gateway's own lists (core/pagination.ts): the last item's time
 * and id. An item removed in between never makes a page skip one that was there all along: if the last item itself is
 * gone, the page starts with the first of its time, and may repeat some of the page before (an overlap, as any list
 * allows).
 */
export function keysetPage<T>(
  items: readonly T[],
  positionOf: (item: T) => Position,
  cursor: string | undefined,
  limit: number,
): Page<T> {
  const placed = items.map((item) => ({ item, at: positionOf(item) }));
  placed.sort((a, b) => a.at.createdAt - b.at.createdAt); // stable: the upstream's order within a time
  let from = 0;
  if (cursor !== undefined) {
    const after = decodeCursor(cursor);
    const last = placed.findIndex(({ at }) => at.createdAt === after.createdAt && at.id === after.id);
    from = last >= 0 ? last + 1 : placed.findIndex(({ at }) => at.createdAt >= after.createdAt);
    if (from < 0) from = placed.length;
  }
  const page = placed.slice(from, from + limit);
  const end = page.at(-1);
  const hasMore = from + limit < placed.length;
  return {
    items: page.map(({ item }) => item),
    pagination: { next_cursor: hasMore && end ? encodeCursor(end.at) : null, has_more: hasMore },
  };
}
