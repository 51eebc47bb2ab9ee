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
 * Cursor pagination over a list the upstream answers whole, in the order of a time each item has (items of the same
 * time in the upstream's order): the cursor holds the last item's time and id, and the next page starts after it. An
 * item removed in between never makes a page skip one that was there all along: if the last item itself is gone, the
 * page starts with the first of its time, and may repeat some of the page before (an overlap, as any list allows).
 */
export function keysetPage<T>(
  items: readonly T[],
  keyOf: (item: T) => readonly [time: number, id: string],
  cursor: string | undefined,
  limit: number,
) {
  const keyed = items.map((item) => ({ item, key: keyOf(item) }));
  keyed.sort((a, b) => a.key[0] - b.key[0]); // stable: the upstream's order within a time
  let from = 0;
  if (cursor !== undefined) {
    const [time, id] = keyFromCursor(cursor);
    const last = keyed.findIndex((entry) => entry.key[0] === time && entry.key[1] === id);
    from = last >= 0 ? last + 1 : keyed.findIndex((entry) => entry.key[0] >= time);
    if (from < 0) from = keyed.length;
  }
  const page = keyed.slice(from, from + limit);
  const hasMore = from + limit < keyed.length;
  const end = page.at(-1);
  const next = hasMore && end ? Buffer.from(JSON.stringify({ k: end.key })).toString("base64url") : null;
  return { items: page.map((entry) => entry.item), pagination: { next_cursor: next, has_more: hasMore } };
}

function keyFromCursor(cursor: string): [number, string] {
  try {
    const { k } = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { k?: unknown };
    if (Array.isArray(k) && k.length === 2 && Number.isFinite(k[0]) && typeof k[1] === "string") return [k[0], k[1]];
  } catch {
    // falls through to the error below
  }
  throw invalidRequest("The cursor is not one this gateway issued", [{ path: "/cursor", message: "is invalid" }]);
}
