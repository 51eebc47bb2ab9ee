// "You may also like": for an item, nearby-priced items of its genre then its sibling genres; for a genre, its most
// popular items. Deterministic ordering so the gateway's tests can pin results.
import { type CatalogData, genreAndDescendants } from "./data.ts";
import type { CatalogItem } from "./products.ts";

export interface Recommendation {
  rank: number;
  reason: string;
  item: CatalogItem;
}

const popularity = (item: CatalogItem): number => item.reviewAverage * Math.log1p(item.reviewCount);

function byPopularity(items: CatalogItem[]): CatalogItem[] {
  return items.sort((a, b) => popularity(b) - popularity(a) || a.itemCode.localeCompare(b.itemCode));
}

export function recommend(
  data: CatalogData,
  basis: { itemCode: string | null; genreId: number | null },
  limit: number,
): Recommendation[] {
  const available = data.items.filter((item) => item.availability);
  const base = basis.itemCode === null ? undefined : data.itemsByCode.get(basis.itemCode);
  if (base === undefined) {
    const genres = genreAndDescendants(data, basis.genreId ?? 0);
    return byPopularity(available.filter((item) => genres.has(item.genreId)))
      .slice(0, limit)
      .map((item, i) => ({ rank: i + 1, reason: "このジャンルの人気商品", item }));
  }
  const closeness = (item: CatalogItem): number => Math.abs(Math.log(item.itemPrice / base.itemPrice));
  const sameGenre = available
    .filter((item) => item.genreId === base.genreId && item.itemCode !== base.itemCode)
    .sort((a, b) => closeness(a) - closeness(b) || a.itemCode.localeCompare(b.itemCode));
  const parent = data.genres.get(base.genreId)?.parentGenreId ?? 0;
  const siblings = genreAndDescendants(data, parent);
  const related = byPopularity(available.filter((item) => siblings.has(item.genreId) && item.genreId !== base.genreId));
  return [
    ...sameGenre.map((item) => ({ reason: "この商品を見た人はこちらもチェックしています", item })),
    ...related.map((item) => ({ reason: "関連ジャンルの人気商品", item })),
  ]
    .slice(0, limit)
    .map((entry, i) => ({ rank: i + 1, ...entry }));
}
