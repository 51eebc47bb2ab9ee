// catalog operations about the site as a whole: its metadata and what people search for.
import { Type } from "@sinclair/typebox";
import { JsonValue, Nullable, PatternString, StrictObject } from "../schemas.ts";
import { defineOperation } from "../types.ts";

const SiteAnswer = Type.Object({
  siteName: Type.String(),
  siteNameEn: Type.String(),
  siteUrl: Type.String(),
  currency: Type.String(),
  locale: Type.String(),
  timeZone: Type.String(),
  itemCount: Type.Integer(),
  genreCount: Type.Integer(),
  storeCount: Type.Integer(),
  reviewCount: Type.Integer(),
  updatedAt: Type.String(),
});

const TrendsAnswer = Type.Object({
  period: Type.String(),
  aggregatedFrom: Type.String(),
  aggregatedTo: Type.String(),
  trends: Type.Array(
    Type.Object({
      rank: Type.Integer(),
      keyword: Type.String(),
      genreId: Type.Integer(),
      searchCount: Type.Integer(),
      previousRank: Nullable(Type.Integer()),
      rankChange: Type.String(),
    }),
  ),
});

export const siteMetadata = defineOperation({
  id: "site_metadata",
  summary: "The catalogue's site",
  description: "Name, currency, locale, time zone and the size of the catalogue.",
  auth: "none",
  readOnly: true,
  input: StrictObject({}),
  output: Type.Ref(JsonValue),
  example: {
    input: {},
    output: {
      name: "ひなたストア オンライン",
      currency: "JPY",
      locale: "ja-JP",
      time_zone: "Asia/Tokyo",
      product_count: 200,
    },
  },
  async handle(_input, ctx) {
    const site = await ctx.upstream.request({ path: "/api/v1/site", answer: SiteAnswer });
    return {
      data: {
        name: site.siteName,
        name_en: site.siteNameEn,
        url: site.siteUrl,
        currency: site.currency,
        locale: site.locale,
        time_zone: site.timeZone,
        product_count: site.itemCount,
        category_count: site.genreCount,
        store_count: site.storeCount,
        review_count: site.reviewCount,
        updated_at: site.updatedAt,
      },
    };
  },
});

export const searchTrends = defineOperation({
  id: "search_trends",
  summary: "Trending searches",
  description:
    "The most searched keywords of the last day, week or month, overall or in a category (ranked within it), with rank changes.",
  auth: "none",
  readOnly: true,
  input: StrictObject({
    period: Type.Optional(Type.Union([Type.Literal("daily"), Type.Literal("weekly"), Type.Literal("monthly")])),
    category_id: Type.Optional(PatternString("^[0-9]{1,6}$", "must be 1 to 6 digits")),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10 })),
  }),
  output: Type.Ref(JsonValue),
  example: {
    input: { period: "daily", limit: 1 },
    output: {
      period: "daily",
      from: "2026-01-14",
      to: "2026-01-14",
      trends: [
        { rank: 1, keyword: "炭酸水", category_id: "203", search_count: 13290, previous_rank: 3, movement: "up" },
      ],
    },
  },
  async handle(input, ctx) {
    const body = await ctx.upstream.request({
      path: "/api/v1/trends",
      query: { period: input.period ?? "daily", genreId: input.category_id, hits: input.limit ?? 10 },
      answer: TrendsAnswer,
    });
    return {
      data: {
        period: body.period,
        from: body.aggregatedFrom,
        to: body.aggregatedTo,
        trends: body.trends.map((t) => ({
          rank: t.rank,
          keyword: t.keyword,
          category_id: String(t.genreId),
          search_count: t.searchCount,
          previous_rank: t.previousRank,
          movement: t.rankChange,
        })),
      },
    };
  },
});
