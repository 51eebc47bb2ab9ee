// Cursor pagination over upstreams that page by number: the cursor holds how many items the walk has listed.
import { invalidRequest } from "../core/errors.ts";
import { decodeCursor, encodeCursor, type Page, type Position } from "../core/pagination.ts";
import type { Pagination } from "./types.ts";

/** Where a page of a page-numbered upstream starts: its page number at a page size of `size`. */
export interface PageWindow {
  page: number;
  size: number;
}

const encodeOffsetCursor = (offset: number): string => Buffer.from(JSON.stringify({ o: offset })).toString("base64url");

/**
 * The upstream page that continues the list after the cursor: without one, the first page of `limit`. The cursor holds
 * how many items were listed before (not a page number, which would name other items at another page size), so a
 * walk whose limit changes neither skips nor repeats any: the next page is the largest size, up to `limit`, that
 * divides that count, and can hold fewer than `limit` items until the walk is back on a page boundary. A cursor of
 * the older form `{p}` (a page number) is read at the limit given.
 */
export function pageWindow(cursor: string | undefined, limit: number): PageWindow {
  if (cursor === undefined) return { page: 1, size: limit };
  const offset = offsetOf(cursor, limit);
  if (offset === 0) return { page: 1, size: limit };
  let size = Math.min(limit, offset);
  while (offset % size !== 0) size -= 1;
  return { page: offset / size + 1, size };
}

function offsetOf(cursor: string, limit: number): number {
  try {
    const { o, p } = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { o?: unknown; p?: unknown };
    if (typeof o === "number" && Number.isSafeInteger(o) && o >= 0) return o;
    if (typeof p === "number" && Number.isSafeInteger(p) && p >= 1) return (p - 1) * limit;
  } catch {
    // falls through to the error below
  }
  throw invalidRequest("The cursor is not one this gateway issued", [{ path: "/cursor", message: "is invalid" }]);
}

export function pagination(window: PageWindow, totalPages: number): Pagination {
  const hasMore = window.page < totalPages;
  return { next_cursor: hasMore ? encodeOffsetCursor(window.page * window.size) : null, has_more: hasMore };
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
