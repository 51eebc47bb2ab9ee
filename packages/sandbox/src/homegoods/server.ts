// The home-goods store upstream ("くらしの森" store API): camelCase REST under /store-api with page/perPage paging and
// `{errors: [{code, message}]}` errors. Categories form a tree; products, product detail, site info and the daily
// deal all reference it, which is what the gateway turns into category nodes.
import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { createSandboxApp } from "../shared/app.ts";
import { type NativeErrorFormatter, notFound } from "../shared/errors.ts";
import { breadcrumbsOf, categoryOr404, crumb, registerCategoryRoutes } from "./category-routes.ts";
import {
  buildHomegoodsData,
  DATA_UPDATED_AT,
  type HomegoodsData,
  IMAGE_HOST,
  ROOT_CATEGORY_CODE,
  SITE_URL,
} from "./data.ts";
import { dealsFor, parseDealDate, tokyoToday } from "./deals.ts";

const ERROR_CODES: Record<number, string> = {
  400: "INVALID_PARAMETER",
  404: "NOT_FOUND",
  429: "TOO_MANY_REQUESTS",
  503: "SERVICE_UNAVAILABLE",
};
const formatHomegoodsError: NativeErrorFormatter = ({ status, message }) => ({
  errors: [{ code: ERROR_CODES[status] ?? (status >= 500 ? "INTERNAL_ERROR" : "INVALID_PARAMETER"), message }],
});

const ProductParams = Type.Object({ productCode: Type.String() });
const DealQuery = Type.Object({ date: Type.Optional(Type.String()) });

function registerStoreRoutes(app: FastifyInstance, data: HomegoodsData): void {
  app.get<{ Params: Static<typeof ProductParams> }>("/store-api/products/:productCode", async (request) => {
    const product = data.productsByCode.get(request.params.productCode);
    if (product === undefined) throw notFound(`Product ${request.params.productCode} was not found`);
    const { categoryCodes, ...fields } = product;
    const categories = categoryCodes.map((code) => ({
      ...crumb(categoryOr404(data, code)),
      breadcrumbs: breadcrumbsOf(data, code),
    }));
    return { product: { ...fields, categories } };
  });

  app.get("/store-api/site", async () => ({
    site: {
      siteCode: "kurashi-no-mori",
      siteName: "くらしの森 ホームストア",
      siteNameEn: "Kurashi no Mori Home Store",
      siteUrl: SITE_URL,
      logoUrl: `${IMAGE_HOST}/site/logo.png`,
      currencyCode: "JPY",
      locale: "ja-JP",
      productCount: data.products.length,
      categoryCount: data.categories.size - 1,
      topCategories: categoryOr404(data, ROOT_CATEGORY_CODE).childCodes.map((code) => crumb(categoryOr404(data, code))),
      updatedAt: DATA_UPDATED_AT,
    },
  }));

  app.get<{ Querystring: Static<typeof DealQuery> }>(
    "/store-api/deals/today",
    { schema: { querystring: DealQuery } },
    async (request) => {
      const date = request.query.date === undefined ? tokyoToday() : parseDealDate(request.query.date);
      return { deal: dealsFor(data, date) };
    },
  );
}

export function buildHomegoodsSandbox(options: { logger?: boolean }): FastifyInstance {
  const app = createSandboxApp({ providerId: "homegoods", formatError: formatHomegoodsError, ...options });
  const data = buildHomegoodsData();
  registerCategoryRoutes(app, data);
  registerStoreRoutes(app, data);
  return app;
}
