// Page-number pagination shared by the sandboxes; each upstream names the fields in its own style.
import { Type } from "@sinclair/typebox";

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  perPage: number;
  pageCount: number;
}

/** A page past the end is empty rather than an error, as most shop APIs do. */
export function paginate<T>(items: readonly T[], page: number, perPage: number): Page<T> {
  const start = (page - 1) * perPage;
  return {
    items: items.slice(start, start + perPage),
    total: items.length,
    page,
    perPage,
    pageCount: Math.ceil(items.length / perPage),
  };
}

export const pageParam = () => Type.Integer({ minimum: 1, maximum: 10_000, default: 1 });
/** Every list endpoint accepts up to 100 per page, so a gateway `limit` (1–100) maps onto one upstream call. */
export const perPageParam = (defaultSize: number, max: number) =>
  Type.Integer({ minimum: 1, maximum: max, default: defaultSize });
