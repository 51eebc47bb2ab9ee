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
