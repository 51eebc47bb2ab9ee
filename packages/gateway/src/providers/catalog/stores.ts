// catalog operations on physical stores in Tokyo: search (by keyword, ward, service or distance) and detail.
import { Type } from "@sinclair/typebox";
import { pageWindow, pagination } from "../paging.ts";
import { Cursor, IdString, JsonValue, Limit, StrictObject } from "../schemas.ts";
import { defineOperation } from "../types.ts";
import { store, UpstreamList, UpstreamStore } from "./mapping.ts";

const SearchAnswer = Type.Object({ ...UpstreamList, stores: Type.Array(UpstreamStore) });
const DetailAnswer = Type.Object({ store: UpstreamStore });

const exampleStore = {
  id: "cat-str-001",
  name: "ひなたストア 渋谷店",
  address: { ward: "渋谷区", full: "東京都渋谷区道玄坂2-10-7" },
  location: { lat: 35.659, lng: 139.6982 },
  pickup_available: true,
};

export const searchStores = defineOperation({
  id: "search_stores",
  summary: "Search stores",
  description: "Stores by keyword, ward or service, or the nearest to a point within a radius (nearest first).",
  auth: "none",
  readOnly: true,
  input: StrictObject({
    query: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    ward: Type.Optional(Type.String({ minLength: 1, maxLength: 20, description: "e.g. 渋谷区" })),
    service: Type.Optional(
      Type.Union(["pickup", "parking", "tax_free", "delivery", "repair_desk"].map((s) => Type.Literal(s))),
    ),
    near: Type.Optional(
      StrictObject({
        lat: Type.Number({ minimum: -90, maximum: 90 }),
        lng: Type.Number({ minimum: -180, maximum: 180 }),
        radius_km: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 100, default: 10 })),
      }),
    ),
    cursor: Type.Optional(Cursor),
    limit: Type.Optional(Limit),
  }),
  output: Type.Ref(JsonValue),
  example: {
    input: { near: { lat: 35.658, lng: 139.7016, radius_km: 2 }, limit: 1 },
    output: { total: 3, stores: [{ ...exampleStore, distance_km: 0.33 }] },
  },
  async handle(input, ctx) {
    const page = pageWindow(input.cursor, input.limit ?? 20);
    const body = await ctx.upstream.request({
      path: "/api/v1/stores/search",
      answer: SearchAnswer,
      query: {
        keyword: input.query,
        ward: input.ward,
        service: input.service,
        lat: input.near?.lat,
        lng: input.near?.lng,
        radiusKm: input.near && (input.near.radius_km ?? 10),
        page: page.page,
        hits: page.size,
      },
    });
    return {
      data: { total: body.count, stores: body.stores.map(store) },
      pagination: pagination(page, body.pageCount),
    };
  },
});

export const storeDetail = defineOperation({
  id: "store_detail",
  summary: "A store",
  description: "Address, location, opening hours, services and nearest station of one store.",
  auth: "none",
  readOnly: true,
  input: StrictObject({ store_id: IdString("e.g. cat-str-001") }),
  output: Type.Ref(JsonValue),
  example: { input: { store_id: "cat-str-001" }, output: exampleStore },
  async handle(input, ctx) {
    const body = await ctx.upstream.request({
      path: `/api/v1/stores/${encodeURIComponent(input.store_id)}`,
      answer: DetailAnswer,
    });
    return { data: store(body.store) };
  },
});
