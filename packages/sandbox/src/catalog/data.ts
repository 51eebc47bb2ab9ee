// The catalogue sandbox's whole dataset, built afresh (and identically) for every sandbox instance.
import { type GenreSeed, genreSeeds } from "./genres.ts";
import { buildItems, type CatalogItem, IMAGE_HOST } from "./products.ts";
import { buildReviews, type CatalogReview } from "./reviews.ts";
import { buildStores, type CatalogStore } from "./stores.ts";
import { buildTrendReport, type TrendPeriod, type TrendReport } from "./trends.ts";

export const ROOT_GENRE_ID = 0;

export interface CatalogGenre {
  genreId: number;
  genreName: string;
  genreNameEn: string;
  genreLevel: number;
  parentGenreId: number | null;
  imageUrl: string;
  itemCount: number;
  childGenreIds: number[];
}

export interface CatalogData {
  genres: Map<number, CatalogGenre>;
  items: CatalogItem[];
  itemsByCode: Map<string, CatalogItem>;
  reviewsByItem: Map<string, CatalogReview[]>;
  stores: CatalogStore[];
  storesById: Map<string, CatalogStore>;
  trends: Record<TrendPeriod, TrendReport>;
}

function indexGenres(items: readonly CatalogItem[]): Map<number, CatalogGenre> {
  const genres = new Map<number, CatalogGenre>();
  const add = (seed: GenreSeed, level: number, parentGenreId: number | null): number => {
    const childGenreIds = (seed.children ?? []).map((child) => add(child, level + 1, seed.genreId));
    const ownCount = items.filter((item) => item.genreId === seed.genreId).length;
    const childCount = childGenreIds.reduce((sum, id) => sum + (genres.get(id)?.itemCount ?? 0), 0);
    genres.set(seed.genreId, {
      genreId: seed.genreId,
      genreName: seed.genreName,
      genreNameEn: seed.genreNameEn,
      genreLevel: level,
      parentGenreId,
      imageUrl: `${IMAGE_HOST}/genres/${seed.genreId}.jpg`,
      itemCount: ownCount + childCount,
      childGenreIds,
    });
    return seed.genreId;
  };
  add(
    { genreId: ROOT_GENRE_ID, genreName: "すべてのジャンル", genreNameEn: "All genres", children: genreSeeds },
    0,
    null,
  );
  return genres;
}

export function buildCatalogData(): CatalogData {
  const items = buildItems(genreSeeds);
  const reviewsByItem = buildReviews(items);
  const stores = buildStores();
  return {
    genres: indexGenres(items),
    items,
    itemsByCode: new Map(items.map((item) => [item.itemCode, item])),
    reviewsByItem,
    stores,
    storesById: new Map(stores.map((store) => [store.storeId, store])),
    trends: {
      daily: buildTrendReport("daily"),
      weekly: buildTrendReport("weekly"),
      monthly: buildTrendReport("monthly"),
    },
  };
}

/** The genre itself and every genre below it. */
export function genreAndDescendants(data: CatalogData, genreId: number): Set<number> {
  const ids = new Set<number>();
  const walk = (id: number): void => {
    ids.add(id);
    for (const child of data.genres.get(id)?.childGenreIds ?? []) walk(child);
  };
  walk(genreId);
  return ids;
}

/** Root first, the genre itself last. */
export function genrePath(data: CatalogData, genreId: number): CatalogGenre[] {
  const path: CatalogGenre[] = [];
  for (let g = data.genres.get(genreId); g !== undefined; ) {
    path.unshift(g);
    g = g.parentGenreId === null ? undefined : data.genres.get(g.parentGenreId);
  }
  return path;
}
