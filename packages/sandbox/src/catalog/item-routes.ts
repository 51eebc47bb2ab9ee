// Item endpoints of the catalogue upstream: search, detail, reviews, recommendations and per-store stock.
import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { badRequest, notFound } from "../shared/errors.ts";
import { pageParam, paginate, perPageParam } from "../shared/paging.ts";
import { type CatalogData, genrePath } from "./data.ts";
import { listHeader } from "./format.ts";
import { searchItems } from "./item-search.ts";
import { recommend } from "./recommend.ts";
import { stockAt } from "./stock.ts";

const SearchQuery = Type.Object({
  keyword: Type.Optional(Type.String({ maxLength: 128 })),
  genreId: Type.Optional(Type.Integer({ minimum: 0 })),
  minPrice: Type.Optional(Type.Integer({ minimum: 0 })),
  maxPrice: Type.Optional(Type.Integer({ minimum: 0 })),
  availability: Type.Optional(Type.Union([Type.Literal(0), Type.Literal(1)])),
  sort: Type.Optional(Type.String()),
  page: pageParam(),
  hits: perPageParam(30, 100),
});
const ItemParams = Type.Object({ itemCode: Type.String() });
const ReviewQuery = Type.Object({
  rating: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })),
  sort: Type.Optional(
    Type.Union(["-postedAt", "+postedAt", "-rating", "+rating", "-helpfulCount"].map((s) => Type.Literal(s))),
  ),
  page: pageParam(),
  hits: perPageParam(10, 100),
});
const RecommendQuery = Type.Object({
  itemCode: Type.Optional(Type.String()),
  genreId: Type.Optional(Type.Integer({ minimum: 0 })),
  hits: perPageParam(10, 100),
});
const InventoryQuery = Type.Object({
  storeIds: Type.Optional(Type.String({ description: "comma-separated store ids" })),
  ward: Type.Optional(Type.String()),
  inStockOnly: Type.Optional(Type.Union([Type.Literal(0), Type.Literal(1)])),
});

export function registerItemRoutes(app: FastifyInstance, data: CatalogData): void {
  const itemOr404 = (itemCode: string) => {
    const item = data.itemsByCode.get(itemCode);
    if (item === undefined) throw notFound(`itemCode ${itemCode} is not found`);
    return item;
  };

  app.get<{ Querystring: Static<typeof SearchQuery> }>(
    "/api/v1/items/search",
    { schema: { querystring: SearchQuery } },
    async (request) => {
      const { page, hits, ...criteria } = request.query;
      if (criteria.genreId !== undefined && !data.genres.has(criteria.genreId)) {
        throw notFound(`genreId ${criteria.genreId} is not found`);
      }
      const result = paginate(searchItems(data, criteria), page, hits);
      return { ...listHeader(result), items: result.items };
    },
  );

  app.get<{ Params: Static<typeof ItemParams> }>("/api/v1/items/:itemCode", async (request) => {
    const item = itemOr404(request.params.itemCode);
    const path = genrePath(data, item.genreId).map(({ genreId, genreName }) => ({ genreId, genreName }));
    return { item: { ...item, genrePath: path } };
  });

  app.get<{ Params: Static<typeof ItemParams>; Querystring: Static<typeof ReviewQuery> }>(
    "/api/v1/items/:itemCode/reviews",
    { schema: { querystring: ReviewQuery } },
    async (request) => {
      const item = itemOr404(request.params.itemCode);
      const { rating, sort = "-postedAt", page, hits } = request.query;
      const all = data.reviewsByItem.get(item.itemCode) ?? [];
      const distribution = Object.fromEntries(
        [1, 2, 3, 4, 5].map((r) => [r, all.filter((x) => x.rating === r).length]),
      );
      const field = sort.slice(1) as "postedAt" | "rating" | "helpfulCount";
      const direction = sort.startsWith("-") ? -1 : 1;
      const filtered = all
        .filter((review) => rating === undefined || review.rating === rating)
        .sort((a, b) => direction * (a[field] < b[field] ? -1 : a[field] > b[field] ? 1 : 0));
      const result = paginate(filtered, page, hits);
      return {
        itemCode: item.itemCode,
        itemName: item.itemName,
        reviewAverage: item.reviewAverage,
        reviewCount: item.reviewCount,
        ratingDistribution: distribution,
        ...listHeader(result),
        reviews: result.items,
      };
    },
  );

  app.get<{ Querystring: Static<typeof RecommendQuery> }>(
    "/api/v1/recommendations",
    { schema: { querystring: RecommendQuery } },
    async (request) => {
      const { itemCode, genreId, hits } = request.query;
      if ((itemCode === undefined) === (genreId === undefined)) {
        throw badRequest("exactly one of itemCode or genreId is required");
      }
      if (itemCode !== undefined) itemOr404(itemCode);
      if (genreId !== undefined && !data.genres.has(genreId)) throw notFound(`genreId ${genreId} is not found`);
      const basis = { itemCode: itemCode ?? null, genreId: genreId ?? null };
      const items = recommend(data, basis, hits);
      return { basis, count: items.length, items };
    },
  );

  app.get<{ Params: Static<typeof ItemParams>; Querystring: Static<typeof InventoryQuery> }>(
    "/api/v1/items/:itemCode/inventory",
    { schema: { querystring: InventoryQuery } },
    async (request) => {
      const item = itemOr404(request.params.itemCode);
      const { storeIds, ward, inStockOnly } = request.query;
      const ids = storeIds
        ?.split(",")
        .map((id) => id.trim())
        .filter((id) => id !== "");
      for (const id of ids ?? []) if (!data.storesById.has(id)) throw notFound(`storeId ${id} is not found`);
      const stores = data.stores
        .filter((store) => ids === undefined || ids.includes(store.storeId))
        .filter((store) => ward === undefined || store.ward === ward)
        .map((store) => stockAt(item, store))
        .filter((stock) => inStockOnly !== 1 || stock.stockQuantity > 0);
      return {
        itemCode: item.itemCode,
        itemName: item.itemName,
        checkedAt: item.updatedAt,
        count: stores.length,
        stores,
      };
    },
  );
}
