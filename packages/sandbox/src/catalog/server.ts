// The catalogue and store data upstream ("ひなたストア" API): a Rakuten-flavoured REST API with camelCase fields,
// page/hits pagination and `{error, error_description}` errors. Genre, site and trend endpoints live here; item and
// store endpoints in their own files.
import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { createSandboxApp } from "../shared/app.ts";
import { notFound } from "../shared/errors.ts";
import { pageParam, paginate, perPageParam } from "../shared/paging.ts";
import { buildCatalogData, type CatalogData, type CatalogGenre, genrePath, ROOT_GENRE_ID } from "./data.ts";
import { formatCatalogError, listHeader } from "./format.ts";
import { registerItemRoutes } from "./item-routes.ts";
import { searchItems } from "./item-search.ts";
import { DATA_UPDATED_AT, SITE_HOST } from "./products.ts";
import { registerStoreRoutes } from "./store-routes.ts";
import { rankedAmong } from "./trends.ts";

const GenreParams = Type.Object({ genreId: Type.Integer({ minimum: 0 }) });
const BrowseQuery = Type.Object({ sort: Type.Optional(Type.String()), page: pageParam(), hits: perPageParam(30, 100) });
const TrendQuery = Type.Object({
  period: Type.Union([Type.Literal("daily"), Type.Literal("weekly"), Type.Literal("monthly")], { default: "daily" }),
  genreId: Type.Optional(Type.Integer({ minimum: 0 })),
  hits: perPageParam(20, 100),
});

const summary = ({ childGenreIds: _children, ...genre }: CatalogGenre) => genre;

function genreOr404(data: CatalogData, genreId: number): CatalogGenre {
  const genre = data.genres.get(genreId);
  if (genre === undefined) throw notFound(`genreId ${genreId} is not found`);
  return genre;
}

type GenreTree = ReturnType<typeof summary> & { children: GenreTree[] };
function tree(data: CatalogData, genre: CatalogGenre): GenreTree {
  return { ...summary(genre), children: genre.childGenreIds.map((id) => tree(data, genreOr404(data, id))) };
}

function registerGenreRoutes(app: FastifyInstance, data: CatalogData): void {
  app.get("/api/v1/genres", async () => ({ genres: tree(data, genreOr404(data, ROOT_GENRE_ID)).children }));

  app.get<{ Params: Static<typeof GenreParams> }>(
    "/api/v1/genres/:genreId",
    { schema: { params: GenreParams } },
    async (request) => {
      const genre = genreOr404(data, request.params.genreId);
      return {
        current: summary(genre),
        parents: genrePath(data, genre.genreId).slice(0, -1).map(summary),
        children: genre.childGenreIds.map((id) => summary(genreOr404(data, id))),
      };
    },
  );

  app.get<{ Params: Static<typeof GenreParams>; Querystring: Static<typeof BrowseQuery> }>(
    "/api/v1/genres/:genreId/items",
    { schema: { params: GenreParams, querystring: BrowseQuery } },
    async (request) => {
      const genre = genreOr404(data, request.params.genreId);
      const { sort, page, hits } = request.query;
      const criteria = sort === undefined ? { genreId: genre.genreId } : { genreId: genre.genreId, sort };
      const result = paginate(searchItems(data, criteria), page, hits);
      return {
        genre: summary(genre),
        parents: genrePath(data, genre.genreId).slice(0, -1).map(summary),
        children: genre.childGenreIds.map((id) => summary(genreOr404(data, id))),
        ...listHeader(result),
        items: result.items,
      };
    },
  );
}

function registerSiteRoutes(app: FastifyInstance, data: CatalogData): void {
  app.get("/api/v1/site", async () => ({
    siteName: "ひなたストア オンライン",
    siteNameEn: "Hinata Store Online",
    siteUrl: SITE_HOST,
    currency: "JPY",
    locale: "ja-JP",
    timeZone: "Asia/Tokyo",
    apiVersion: "1.4.0",
    itemCount: data.items.length,
    genreCount: data.genres.size - 1,
    topGenreCount: genreOr404(data, ROOT_GENRE_ID).childGenreIds.length,
    storeCount: data.stores.length,
    reviewCount: [...data.reviewsByItem.values()].reduce((sum, reviews) => sum + reviews.length, 0),
    updatedAt: DATA_UPDATED_AT,
  }));

  app.get<{ Querystring: Static<typeof TrendQuery> }>(
    "/api/v1/trends",
    { schema: { querystring: TrendQuery } },
    async (request) => {
      const { period, genreId, hits } = request.query;
      if (genreId !== undefined) genreOr404(data, genreId);
      const report = data.trends[period];
      const inGenre = (trendGenre: number): boolean =>
        genreId === undefined || genrePath(data, trendGenre).some((g) => g.genreId === genreId);
      // A genre's trends are ranked among themselves, as a category ranking is.
      const inThisGenre = report.trends.filter((t) => inGenre(t.genreId));
      const trends = (genreId === undefined ? inThisGenre : rankedAmong(inThisGenre)).slice(0, hits);
      return { ...report, genreId: genreId ?? null, count: trends.length, trends };
    },
  );
}

export function buildCatalogSandbox(options: { logger?: boolean }): FastifyInstance {
  const app = createSandboxApp({ providerId: "catalog", formatError: formatCatalogError, ...options });
  const data = buildCatalogData();
  registerGenreRoutes(app, data);
  registerItemRoutes(app, data);
  registerStoreRoutes(app, data);
  registerSiteRoutes(app, data);
  return app;
}
