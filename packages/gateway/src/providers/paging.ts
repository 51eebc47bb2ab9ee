// Cursor pagination over upstreams that page by number: the cursor is an opaque token for the next page.
import { invalidRequest } from "../core/errors.ts";
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
 * Cursor pagination over a list the upstream answers whole: the cursor holds the position of the next item, so a page
 * asked with another `limit` still starts where the last one ended.
 */
export function slicePage<T>(items: readonly T[], cursor: string | undefined, limit: number) {
  const from = cursor === undefined ? 0 : positionFromCursor(cursor);
  const hasMore = from + limit < items.length;
  const next = hasMore ? Buffer.from(JSON.stringify({ o: from + limit })).toString("base64url") : null;
  return { items: items.slice(from, from + limit), pagination: { next_cursor: next, has_more: hasMore } };
}

function positionFromCursor(cursor: string): number {
  try {
    const { o } = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { o?: unknown };
    if (typeof o === "number" && Number.isInteger(o) && o >= 0) return o;
  } catch {
    // falls through to the error below
  }
  throw invalidRequest("The cursor is not one this gateway issued", [{ path: "/cursor", message: "is invalid" }]);
}
