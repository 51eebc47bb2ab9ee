// Category endpoints of the home-goods upstream: the tree, one category's subtree, and the products under a category.
import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { notFound } from "../shared/errors.ts";
import { pageParam, paginate, perPageParam } from "../shared/paging.ts";
import {
  breadcrumbs,
  type HomeCategory,
  type HomegoodsData,
  type HomeProduct,
  ROOT_CATEGORY_CODE,
  subtreeCodes,
} from "./data.ts";

export interface CategoryView {
  categoryCode: string;
  categoryName: string;
  categoryNameEn: string;
  imageUrl: string | null;
  level: number;
  parentCode: string | null;
  sortOrder: number;
  productCount: number;
  hasSubCategories: boolean;
  subCategories: CategoryView[];
}

export const crumb = ({ categoryCode, categoryName, imageUrl }: HomeCategory) => ({
  categoryCode,
  categoryName,
  imageUrl,
});

export function categoryOr404(data: HomegoodsData, code: string): HomeCategory {
  const category = data.categories.get(code);
  if (category === undefined) throw notFound(`Category ${code} was not found`);
  return category;
}

/** The category with `depth` levels of sub-categories below it (0: none). */
export function categoryView(data: HomegoodsData, category: HomeCategory, depth: number): CategoryView {
  const { childCodes, ...fields } = category;
  return {
    ...fields,
    hasSubCategories: childCodes.length > 0,
    subCategories: depth <= 0 ? [] : childCodes.map((code) => categoryView(data, categoryOr404(data, code), depth - 1)),
  };
}

export const breadcrumbsOf = (data: HomegoodsData, code: string) => breadcrumbs(data, code).map(crumb);

export const productSummary = (p: HomeProduct) => ({
  productCode: p.productCode,
  productName: p.productName,
  imageUrl: p.imageUrl,
  listPrice: p.listPrice,
  salePrice: p.salePrice,
  ratingAverage: p.ratingAverage,
  reviewCount: p.reviewCount,
  stockStatus: p.stockStatus,
});

const SORTS = {
  recommended: (a: HomeProduct, b: HomeProduct) => b.reviewCount - a.reviewCount,
  priceAsc: (a: HomeProduct, b: HomeProduct) => (a.salePrice ?? a.listPrice) - (b.salePrice ?? b.listPrice),
  priceDesc: (a: HomeProduct, b: HomeProduct) => (b.salePrice ?? b.listPrice) - (a.salePrice ?? a.listPrice),
  newest: (a: HomeProduct, b: HomeProduct) => b.releasedAt.localeCompare(a.releasedAt),
  rating: (a: HomeProduct, b: HomeProduct) => b.ratingAverage - a.ratingAverage,
} as const;

const DepthQuery = Type.Object({ depth: Type.Integer({ minimum: 0, maximum: 5, default: 5 }) });
const CategoryParams = Type.Object({ categoryCode: Type.String() });
const ProductsQuery = Type.Object({
  sort: Type.Union(
    Object.keys(SORTS).map((s) => Type.Literal(s)),
    { default: "recommended" },
  ),
  page: pageParam(),
  perPage: perPageParam(20, 100),
});

export function registerCategoryRoutes(app: FastifyInstance, data: HomegoodsData): void {
  app.get<{ Querystring: Static<typeof DepthQuery> }>(
    "/store-api/categories",
    { schema: { querystring: DepthQuery } },
    async (request) => ({
      rootCategory: categoryView(data, categoryOr404(data, ROOT_CATEGORY_CODE), request.query.depth),
      totalCount: data.categories.size - 1,
    }),
  );

  app.get<{ Params: Static<typeof CategoryParams>; Querystring: Static<typeof DepthQuery> }>(
    "/store-api/categories/:categoryCode",
    { schema: { querystring: DepthQuery } },
    async (request) => {
      const category = categoryOr404(data, request.params.categoryCode);
      return {
        category: categoryView(data, category, request.query.depth),
        breadcrumbs: breadcrumbsOf(data, category.categoryCode),
      };
    },
  );

  app.get<{ Params: Static<typeof CategoryParams>; Querystring: Static<typeof ProductsQuery> }>(
    "/store-api/categories/:categoryCode/products",
    { schema: { querystring: ProductsQuery } },
    async (request) => {
      const category = categoryOr404(data, request.params.categoryCode);
      const { sort, page, perPage } = request.query;
      const codes = subtreeCodes(data, category.categoryCode);
      const compare = SORTS[sort as keyof typeof SORTS];
      // Ties fall back to product code so pages are stable.
      const products = data.products
        .filter((p) => p.categoryCodes.some((code) => codes.has(code)))
        .sort((a, b) => compare(a, b) || a.productCode.localeCompare(b.productCode));
      const result = paginate(products, page, perPage);
      return {
        category: categoryView(data, category, 1),
        breadcrumbs: breadcrumbsOf(data, category.categoryCode),
        products: result.items.map(productSummary),
        paging: {
          page: result.page,
          perPage: result.perPage,
          totalCount: result.total,
          totalPages: result.pageCount,
          hasNext: result.page < result.pageCount,
        },
      };
    },
  );
}
