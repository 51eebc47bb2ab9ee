// homegoods: a home-goods store and its content. Every answer is a category node, strictly (no other field is
// allowed): categories, products, the site and the day's deals are all expressed as nodes and their children.
import { Type } from "@sinclair/typebox";
import { pageWindow, pagination } from "../paging.ts";
import { Cursor, IdString, Limit, StrictObject } from "../schemas.ts";
import { defineOperation, defineProvider } from "../types.ts";
import {
  CategoryNode,
  categoryNode,
  node,
  productNode,
  type UpstreamCategory,
  type UpstreamProductSummary,
} from "./nodes.ts";

const Node = Type.Ref(CategoryNode);
const ProductId = IdString("Product id, e.g. hgp-0001.");
const CategoryId = IdString("Category id, e.g. hg-10.");
const image = (path: string) => `https://img.kurashi-no-mori.example.jp/${path}`;

const productCategories = defineOperation({
  id: "product_categories",
  summary: "The category tree",
  description:
    "The root category and its descendants down to `depth` levels (default 3). A category at the last level that has " +
    "sub-categories has no `children` (not expanded: ask for a greater depth); `children: []` means it has none.",
  auth: "none",
  readOnly: true,
  input: StrictObject({ depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })) }),
  output: Node,
  example: {
    input: { depth: 1 },
    output: node("hg-root", "すべてのカテゴリ", image("categories/hg-root.jpg"), [
      node("hg-10", "家具", image("categories/hg-10.jpg")),
    ]),
  },
  async handle(input, ctx) {
    const body = await ctx.upstream.request<{ rootCategory: UpstreamCategory }>({
      path: "/store-api/categories",
      query: { depth: input.depth ?? 3 },
    });
    return { data: categoryNode(body.rootCategory) };
  },
});

const browseProducts = defineOperation({
  id: "browse_products",
  summary: "Products of a category",
  description: "The category as a node whose children are its products (a page of them), each a node too.",
  auth: "none",
  readOnly: true,
  input: StrictObject({
    category_id: CategoryId,
    sort: Type.Optional(
      Type.Union(["recommended", "price_asc", "price_desc", "newest", "rating"].map((s) => Type.Literal(s))),
    ),
    cursor: Type.Optional(Cursor),
    limit: Type.Optional(Limit),
  }),
  output: Node,
  example: {
    input: { category_id: "hg-1010", limit: 1 },
    output: node("hg-1010", "ソファ", image("categories/hg-1010.jpg"), [
      node("hgp-0001", "2人掛けソファ ファブリック ホワイト", image("products/hgp-0001/main.jpg")),
    ]),
  },
  async handle(input, ctx) {
    const page = pageWindow(input.cursor, input.limit ?? 20);
    const sorts: Record<string, string> = { price_asc: "priceAsc", price_desc: "priceDesc" };
    const body = await ctx.upstream.request<{
      category: UpstreamCategory;
      products: UpstreamProductSummary[];
      paging: { totalPages: number };
    }>({
      path: `/store-api/categories/${encodeURIComponent(input.category_id)}/products`,
      query: { page: page.page, perPage: page.size, sort: input.sort && (sorts[input.sort] ?? input.sort) },
    });
    const { categoryCode, categoryName, imageUrl } = body.category;
    return {
      data: node(categoryCode, categoryName, imageUrl, body.products.map(productNode)),
      pagination: pagination(page, body.paging.totalPages),
    };
  },
});

const productDetail = defineOperation({
  id: "product_detail",
  summary: "A product and its categories",
  description: "The product as a node whose children are the categories it belongs to.",
  auth: "none",
  readOnly: true,
  input: StrictObject({ product_id: ProductId }),
  output: Node,
  example: {
    input: { product_id: "hgp-0001" },
    output: node("hgp-0001", "2人掛けソファ ファブリック ホワイト", image("products/hgp-0001/main.jpg"), [
      node("hg-1010", "ソファ", image("categories/hg-1010.jpg")),
      node("hg-90", "新生活応援特集", image("categories/hg-90.jpg")),
    ]),
  },
  async handle(input, ctx) {
    const { product } = await ctx.upstream.request<{
      product: UpstreamProductSummary & { categories: UpstreamCategory[] };
    }>({ path: `/store-api/products/${encodeURIComponent(input.product_id)}` });
    const categories = product.categories.map((c) => node(c.categoryCode, c.categoryName, c.imageUrl));
    return { data: node(product.productCode, product.productName, product.imageUrl, categories) };
  },
});

const siteMetadata = defineOperation({
  id: "site_metadata",
  summary: "The store itself",
  description: "The site as a node (its name and logo) whose children are the top categories.",
  auth: "none",
  readOnly: true,
  input: StrictObject({}),
  output: Node,
  example: {
    input: {},
    output: node("kurashi-no-mori", "くらしの森 ホームストア", image("site/logo.png"), [
      node("hg-10", "家具", image("categories/hg-10.jpg")),
    ]),
  },
  async handle(_input, ctx) {
    const { site } = await ctx.upstream.request<{
      site: { siteCode: string; siteName: string; logoUrl: string | null; topCategories: UpstreamCategory[] };
    }>({ path: "/store-api/site" });
    return { data: node(site.siteCode, site.siteName, site.logoUrl, site.topCategories.map(categoryNode)) };
  },
});

/** The days the store has deals for. */
const firstDealDate = "2020-01-01";
const lastDealDate = "2035-12-31";

const todayDeals = defineOperation({
  id: "today_deals",
  summary: "The day's deals",
  description: "The deal of a day (default: today in Tokyo) as a node whose children are the discounted products.",
  auth: "none",
  readOnly: true,
  input: StrictObject({
    date: Type.Optional(
      Type.String({ format: "date", description: `YYYY-MM-DD, ${firstDealDate} to ${lastDealDate}` }),
    ),
  }),
  output: Node,
  example: {
    input: { date: "2026-01-15" },
    output: node("deal-20260115", "本日のお買い得 1月15日", image("deals/2026-01-15/banner.jpg"), [
      node("hgp-0043", "洗える 敷き布団 グリーン", image("products/hgp-0043/main.jpg")),
    ]),
  },
  // The store's deal calendar: a date outside it is the caller's mistake, named like any other failing field.
  check({ date }) {
    if (typeof date !== "string" || (date >= firstDealDate && date <= lastDealDate)) return [];
    return [
      {
        message: `date ${date} is outside the store's deal calendar`,
        problems: [{ path: "/date", message: `must be between ${firstDealDate} and ${lastDealDate}` }],
      },
    ];
  },
  async handle(input, ctx) {
    const { deal } = await ctx.upstream.request<{
      deal: { dealCode: string; title: string; bannerImageUrl: string | null; items: UpstreamProductSummary[] };
    }>({ path: "/store-api/deals/today", query: { date: input.date } });
    return { data: node(deal.dealCode, deal.title, deal.bannerImageUrl, deal.items.map(productNode)) };
  },
});

export const homegoodsProvider = defineProvider({
  id: "homegoods",
  title: "Home goods",
  description: "A home-goods store and its content; every answer is a category node.",
  sandbox: "homegoods",
  schemas: [CategoryNode],
  upstreamErrorMessage: (body) => (body as { errors?: { message?: string }[] } | null)?.errors?.[0]?.message,
  operations: [browseProducts, productCategories, productDetail, siteMetadata, todayDeals],
});
