// Keyword, genre, price and availability filtering plus Rakuten-style sort keys ("+itemPrice", "-reviewAverage").
import { badRequest } from "../shared/errors.ts";
import { foldForSearch, searchTerms } from "../shared/search.ts";
import { type CatalogData, genreAndDescendants } from "./data.ts";
import type { CatalogItem } from "./products.ts";

export const ITEM_SORTS = [
  "standard",
  "+itemPrice",
  "-itemPrice",
  "-reviewAverage",
  "-reviewCount",
  "-releaseDate",
  "+releaseDate",
] as const;
export type ItemSort = (typeof ITEM_SORTS)[number];

export interface ItemCriteria {
  keyword?: string;
  genreId?: number;
  minPrice?: number;
  maxPrice?: number;
  availability?: 0 | 1;
  sort?: string;
}

/** An unencoded "+" in a query string decodes to a space, so " itemPrice" is read as "+itemPrice". */
export function parseItemSort(sort: string | undefined): ItemSort {
  const normalised = sort === undefined ? "standard" : sort.replace(/^ /, "+");
  const found = ITEM_SORTS.find((s) => s === normalised);
  if (found === undefined) throw badRequest(`sort must be one of ${ITEM_SORTS.join(", ")}`);
  return found;
}

export function sortItems(items: CatalogItem[], sort: ItemSort): CatalogItem[] {
  if (sort === "standard") return items;
  const field = sort.slice(1) as "itemPrice" | "reviewAverage" | "reviewCount" | "releaseDate";
  const direction = sort.startsWith("-") ? -1 : 1;
  // Ties keep catalogue order (Array.prototype.sort is stable), so pages never shuffle between calls.
  return items.sort((a, b) => direction * (a[field] < b[field] ? -1 : a[field] > b[field] ? 1 : 0));
}

export function searchItems(data: CatalogData, criteria: ItemCriteria): CatalogItem[] {
  const sort = parseItemSort(criteria.sort);
  const { minPrice, maxPrice, availability } = criteria;
  if (minPrice !== undefined && maxPrice !== undefined && minPrice > maxPrice) {
    throw badRequest("minPrice must not be greater than maxPrice");
  }
  const terms = searchTerms(criteria.keyword);
  const genres = criteria.genreId === undefined ? undefined : genreAndDescendants(data, criteria.genreId);
  const matches = data.items.filter((item) => {
    if (genres !== undefined && !genres.has(item.genreId)) return false;
    if (minPrice !== undefined && item.itemPrice < minPrice) return false;
    if (maxPrice !== undefined && item.itemPrice > maxPrice) return false;
    if (availability === 1 && !item.availability) return false;
    if (terms.length === 0) return true;
    const haystack = foldForSearch(
      [item.itemName, item.catchcopy, item.itemCaption, item.genreName, item.shopName, ...item.tags].join(" "),
    );
    return terms.every((term) => haystack.includes(term));
  });
  return sortItems(matches, sort);
}
