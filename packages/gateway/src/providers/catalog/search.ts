// catalog operations that list products: full-text search and category browsing.
import { type Static, Type } from "@sinclair/typebox";
import { pagination } from "../paging.ts";
import { Cursor, Limit, StrictObject } from "../schemas.ts";
import { defineOperation } from "../types.ts";
import { CategoryId, exampleProduct, Output, page, pageQuery } from "./common.ts";
import { Genre, product, UpstreamItem, UpstreamList } from "./mapping.ts";

const SearchAnswer = Type.Object({ ...UpstreamList, items: Type.Array(UpstreamItem) });

/** A category as browsing answers it: its name in English, image and product count besides. */
const BrowsedGenre = Type.Object({
  ...Genre.properties,
  genreNameEn: Type.String(),
  imageUrl: Type.String(),
  itemCount: Type.Integer(),
});

const BrowseAnswer = Type.Object({
  ...UpstreamList,
  genre: BrowsedGenre,
  parents: Type.Array(BrowsedGenre),
  children: Type.Array(BrowsedGenre),
  items: Type.Array(UpstreamItem),
});

export const searchProducts = defineOperation({
  id: "search_products",
  summary: "Search products",
  description: "Full-text search over titles, descriptions and tags, with a category, a price range and a sort order.",
  auth: "none",
  readOnly: true,
  input: StrictObject({
    query: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    category_id: Type.Optional(CategoryId),
    min_price: Type.Optional(Type.Integer({ minimum: 0 })),
    max_price: Type.Optional(Type.Integer({ minimum: 0 })),
    in_stock_only: Type.Optional(Type.Boolean()),
    sort: Type.Optional(
      Type.Union(
        ["relevance", "price_asc", "price_desc", "rating", "review_count", "newest"].map((s) => Type.Literal(s)),
      ),
    ),
    cursor: Type.Optional(Cursor),
    limit: Type.Optional(Limit),
  }),
  output: Output,
  example: { input: { query: "米", limit: 1 }, output: { total: 9, products: [exampleProduct] } },
  check({ min_price, max_price }) {
    if (typeof min_price !== "number" || typeof max_price !== "number" || min_price <= max_price) return [];
    return [
      { message: "min_price is above max_price", problems: [{ path: "/min_price", message: "must be <= max_price" }] },
    ];
  },
  async handle(input, ctx) {
    const sorts: Record<string, string> = {
      relevance: "standard",
      price_asc: "+itemPrice",
      price_desc: "-itemPrice",
      rating: "-reviewAverage",
      review_count: "-reviewCount",
      newest: "-releaseDate",
    };
    const paging = page(input);
    const body = await ctx.upstream.request({
      path: "/api/v1/items/search",
      answer: SearchAnswer,
      query: {
        keyword: input.query,
        genreId: input.category_id,
        minPrice: input.min_price,
        maxPrice: input.max_price,
        availability: input.in_stock_only ? 1 : undefined,
        sort: input.sort && sorts[input.sort],
        ...pageQuery(paging),
      },
    });
    return {
      data: { total: body.count, products: body.items.map(product) },
      pagination: pagination(paging, body.pageCount),
    };
  },
});

export const browseCatalog = defineOperation({
  id: "browse_catalog",
  summary: "Browse a category",
  description: "A category with its ancestors, its subcategories and a page of its products (default: the root).",
  auth: "none",
  readOnly: true,
  input: StrictObject({
    category_id: Type.Optional(CategoryId),
    cursor: Type.Optional(Cursor),
    limit: Type.Optional(Limit),
  }),
  output: Output,
  example: {
    input: { category_id: "101", limit: 1 },
    output: {
      category: { id: "101", name: "米・雑穀", name_en: "Rice & grains", product_count: 9 },
      path: [
        { id: "0", name: "すべてのジャンル" },
        { id: "100", name: "食品" },
      ],
      subcategories: [],
      products: [exampleProduct],
    },
  },
  async handle(input, ctx) {
    const category = (g: Static<typeof BrowsedGenre>) => ({
      id: String(g.genreId),
      name: g.genreName,
      name_en: g.genreNameEn,
      image_url: g.imageUrl,
      product_count: g.itemCount,
    });
    const paging = page(input);
    const body = await ctx.upstream.request({
      path: `/api/v1/genres/${input.category_id ?? "0"}/items`,
      query: pageQuery(paging),
      answer: BrowseAnswer,
    });
    return {
      data: {
        category: category(body.genre),
        path: body.parents.map((g) => ({ id: String(g.genreId), name: g.genreName })),
        subcategories: body.children.map(category),
        products: body.items.map(product),
      },
      pagination: pagination(paging, body.pageCount),
    };
  },
});
