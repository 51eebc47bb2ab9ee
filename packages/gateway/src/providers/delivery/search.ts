// The public delivery operation (API key only): search the restaurants' menus by area, cuisine and keyword.
import { Type } from "@sinclair/typebox";
import { pageWindow, pagination } from "../paging.ts";
import { Cursor, Limit, StrictObject, WordString } from "../schemas.ts";
import { defineOperation } from "../types.ts";
import { app, toMenu } from "./adapter.ts";
import { Menu } from "./schemas.ts";

const yen = (amount: number) => ({ amount, currency: "JPY" });

export const searchMenus = defineOperation({
  id: "search_menus",
  summary: "Search restaurant menus",
  description:
    "Tokyo restaurants that deliver, with their menus: filter by area and cuisine; a keyword keeps the dishes whose " +
    "name or description contains it (the whole menu when the restaurant's name does). Item ids go to create_order.",
  auth: "none",
  readOnly: true,
  input: StrictObject({
    area: Type.Optional(WordString("e.g. shinjuku, shibuya, tsukiji, jimbocho, ueno, akasaka, asakusa.")),
    cuisine: Type.Optional(WordString("e.g. ramen, sushi, curry, bento, yakitori, tonkatsu, udon, tempura.")),
    keyword: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: "Japanese or English, e.g. 餃子 or curry." }),
    ),
    cursor: Type.Optional(Cursor),
    limit: Type.Optional(Limit),
  }),
  output: Type.Object({ menus: Type.Array(Menu), total: Type.Integer() }, { additionalProperties: false }),
  example: {
    input: { area: "shinjuku", keyword: "餃子" },
    output: {
      menus: [
        {
          restaurant: {
            id: "kitchen_hayate",
            name: "新宿 麺屋 はやて",
            name_en: "Shinjuku Menya Hayate",
            cuisine: "ramen",
            area: "shinjuku",
            address: "東京都新宿区西新宿7-8-2 はやてビル1F",
            open: true,
            delivery_fee: yen(350),
            minimum_order: yen(1000),
            estimated_delivery_minutes: 27,
          },
          items: [
            {
              id: "item_hayate_gyoza",
              name: "焼き餃子 (6個)",
              name_en: "Pan-fried gyoza (6)",
              description: "羽根つき、自家製の皮",
              price: yen(450),
              available: true,
            },
          ],
        },
      ],
      total: 1,
    },
  },
  async handle(input, ctx) {
    const page = pageWindow(input.cursor, input.limit ?? 20);
    const body = await app.stores(ctx, {
      area: input.area,
      genre: input.cuisine,
      q: input.keyword,
      page: page.page,
      per_page: page.size,
    });
    return {
      data: { menus: body.stores.map(toMenu), total: body.page_info.total },
      pagination: pagination(page, body.page_info.total_pages),
    };
  },
});
