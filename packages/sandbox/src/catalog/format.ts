// The catalogue upstream's native wire conventions: Rakuten-style error bodies and list headers.
import type { NativeErrorFormatter } from "../shared/errors.ts";
import type { Page } from "../shared/paging.ts";

const ERROR_CODES: Record<number, string> = {
  400: "wrong_parameter",
  404: "not_found",
  429: "too_many_requests",
  503: "service_unavailable",
};

/** `{ "error": "not_found", "error_description": "..." }` */
export const formatCatalogError: NativeErrorFormatter = ({ status, message }) => ({
  error: ERROR_CODES[status] ?? (status >= 500 ? "system_error" : "wrong_parameter"),
  error_description: message,
});

/** `count` is the total number of matches, `first`/`last` the 1-based positions on this page (0 when empty). */
export function listHeader<T>(page: Page<T>) {
  const first = page.items.length === 0 ? 0 : (page.page - 1) * page.perPage + 1;
  return {
    count: page.total,
    page: page.page,
    first,
    last: page.items.length === 0 ? 0 : first + page.items.length - 1,
    hits: page.perPage,
    pageCount: page.pageCount,
  };
}
