// catalog operations on one product: its detail, its reviews and what to recommend with it.
import { Type } from "@sinclair/typebox";
import { pagination } from "../paging.ts";
import { Cursor, Limit, Nullable, StrictObject } from "../schemas.ts";
import { defineOperation } from "../types.ts";
import { CategoryId, exampleProduct, Output, ProductId, page, pageQuery } from "./common.ts";
import { product, UpstreamItem, UpstreamList } from "./mapping.ts";

const DetailAnswer = Type.Object({ item: UpstreamItem });

const ReviewsAnswer = Type.Object({
  ...UpstreamList,
  reviewAverage: Type.Number(),
  reviewCount: Type.Integer(),
  ratingDistribution: Type.Record(Type.String(), Type.Integer()),
  reviews: Type.Array(
    Type.Object({
      reviewId: Type.String(),
      rating: Type.Integer(),
      title: Type.String(),
      comment: Type.String(),
      nickname: Type.String(),
      ageGroup: Type.String(),
      postedAt: Type.String(),
      helpfulCount: Type.Integer(),
      purchaseVerified: Type.Boolean(),
    }),
  ),
});

const RecommendationsAnswer = Type.Object({
  basis: Type.Object({
    itemCode: Nullable(Type.String()),
    genreId: Nullable(Type.Integer()),
  }),
  items: Type.Array(Type.Object({ rank: Type.Integer(), reason: Type.String(), item: UpstreamItem })),
});

export const productDetail = defineOperation({
  id: "product_detail",
  summary: "A product",
  description: "Everything about one product: price, stock, rating, category path, shop, images.",
  auth: "none",
  readOnly: true,
  input: StrictObject({ product_id: ProductId }),
  output: Output,
  example: { input: { product_id: "cat-prd-0001" }, output: exampleProduct },
  async handle(input, ctx) {
    const { item } = await ctx.upstream.request({
      path: `/api/v1/items/${encodeURIComponent(input.product_id)}`,
      answer: DetailAnswer,
    });
    return { data: product(item) };
  },
});

export const productReviews = defineOperation({
  id: "product_reviews",
  summary: "Reviews of a product",
  description: "The product's rating summary and a page of its reviews, optionally of one rating only.",
  auth: "none",
  readOnly: true,
  input: StrictObject({
    product_id: ProductId,
    rating: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })),
    sort: Type.Optional(Type.Union(["newest", "helpful", "rating_desc", "rating_asc"].map((s) => Type.Literal(s)))),
    cursor: Type.Optional(Cursor),
    limit: Type.Optional(Limit),
  }),
  output: Output,
  example: {
    input: { product_id: "cat-prd-0001", limit: 1 },
    output: {
      product_id: "cat-prd-0001",
      rating: { average: 3.22, count: 9, distribution: { "1": 2, "2": 0, "3": 3, "4": 2, "5": 2 } },
      reviews: [{ id: "cat-rev-00009", rating: 5, title: "リピートしています", verified_purchase: true }],
    },
  },
  async handle(input, ctx) {
    const sorts: Record<string, string> = {
      newest: "-postedAt",
      helpful: "-helpfulCount",
      rating_desc: "-rating",
      rating_asc: "+rating",
    };
    const paging = page(input);
    const body = await ctx.upstream.request({
      path: `/api/v1/items/${encodeURIComponent(input.product_id)}/reviews`,
      query: { rating: input.rating, sort: input.sort && sorts[input.sort], ...pageQuery(paging) },
      answer: ReviewsAnswer,
    });
    return {
      data: {
        product_id: input.product_id,
        rating: { average: body.reviewAverage, count: body.reviewCount, distribution: body.ratingDistribution },
        reviews: body.reviews.map((r) => ({
          id: r.reviewId,
          rating: r.rating,
          title: r.title,
          comment: r.comment,
          author: { nickname: r.nickname, age_group: r.ageGroup },
          posted_at: r.postedAt,
          helpful_count: r.helpfulCount,
          verified_purchase: r.purchaseVerified,
        })),
      },
      pagination: pagination(paging, body.pageCount),
    };
  },
});

export const recommendProducts = defineOperation({
  id: "recommend_products",
  summary: "Recommended products",
  description:
    "Products recommended for a product (bought or viewed together) or for a category (best sellers). Give exactly one of product_id and category_id.",
  auth: "none",
  readOnly: true,
  input: StrictObject({
    product_id: Type.Optional(ProductId),
    category_id: Type.Optional(CategoryId),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10 })),
  }),
  output: Output,
  example: {
    input: { product_id: "cat-prd-0025", limit: 1 },
    output: {
      based_on: { product_id: "cat-prd-0025", category_id: null },
      recommendations: [{ rank: 1, reason: "この商品を見た人はこちらもチェックしています", product: exampleProduct }],
    },
  },
  inputRequired: true,
  check({ product_id, category_id }) {
    if ((product_id === undefined) !== (category_id === undefined)) return [];
    return [
      {
        message: "Give exactly one of product_id and category_id",
        problems: [{ path: "/product_id", message: "exactly one of product_id and category_id is required" }],
      },
    ];
  },
  async handle(input, ctx) {
    const body = await ctx.upstream.request({
      path: "/api/v1/recommendations",
      query: { itemCode: input.product_id, genreId: input.category_id, hits: input.limit ?? 10 },
      answer: RecommendationsAnswer,
    });
    return {
      data: {
        based_on: {
          product_id: body.basis.itemCode,
          category_id: body.basis.genreId === null ? null : String(body.basis.genreId),
        },
        recommendations: body.items.map((r) => ({ rank: r.rank, reason: r.reason, product: product(r.item) })),
      },
    };
  },
});
