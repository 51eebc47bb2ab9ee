// Public dining operations (API key only): search restaurants, list a restaurant's free slots on a Tokyo date.
import { Type } from "@sinclair/typebox";
import { pageWindow, pagination } from "../paging.ts";
import { Cursor, Limit, Nullable, StrictObject, WordString } from "../schemas.ts";
import { defineOperation } from "../types.ts";
import { site, toRestaurant, toSlot } from "./adapter.ts";
import { PartySize, Restaurant, RestaurantId, Slot } from "./schemas.ts";
import { tokyoDate } from "./tokyo-time.ts";

const exampleRestaurant = {
  id: "rst_instant",
  name: "銀座 鮨 はなぶさ",
  name_en: "Ginza Sushi Hanabusa",
  cuisine: "sushi",
  area: "ginza",
  address: "東京都中央区銀座6-4-12 花房ビル2F",
  nearest_station: "銀座駅 徒歩3分",
  phone: "03-3571-0812",
  booking_mode: "instant" as const,
  cancellation_policy: { type: "until_hours_before" as const, hours: 24 },
  price_range: { lunch: { amount: 8800, currency: "JPY" }, dinner: { amount: 22000, currency: "JPY" } },
  max_party_size: 6,
  reservable: true,
  waitlist: true,
  closed_weekdays: [],
};

export const searchRestaurants = defineOperation({
  id: "search_restaurants",
  summary: "Search restaurants",
  description: "Tokyo restaurants of the booking site, filtered by area, cuisine and the party size a table seats.",
  auth: "none",
  readOnly: true,
  input: StrictObject({
    area: Type.Optional(WordString("e.g. ginza, shibuya, shinjuku, kagurazaka, ebisu, asakusa.")),
    cuisine: Type.Optional(WordString("e.g. sushi, kaiseki, yakitori, ramen, tempura, french, italian.")),
    party_size: Type.Optional(PartySize),
    cursor: Type.Optional(Cursor),
    limit: Type.Optional(Limit),
  }),
  output: Type.Object({ restaurants: Type.Array(Restaurant), total: Type.Integer() }, { additionalProperties: false }),
  example: { input: { area: "ginza", limit: 5 }, output: { restaurants: [exampleRestaurant], total: 1 } },
  async handle(input, ctx) {
    const page = pageWindow(input.cursor, input.limit ?? 20);
    const body = await site.shops(ctx, {
      area: input.area,
      genre: input.cuisine,
      seats: input.party_size,
      page: page.page,
      per: page.size,
    });
    return {
      data: { restaurants: body.shops.map(toRestaurant), total: body.paging.total },
      pagination: pagination(page, body.paging.pages),
    };
  },
});

export const listSlots = defineOperation({
  id: "list_slots",
  summary: "List a restaurant's free slots",
  description:
    "The free tables on `date` (a Tokyo calendar day, today or later), in start-time order: those that seat " +
    "`party_size` when it is given, every free table otherwise (each slot says the party sizes it seats). Each " +
    "slot is one table at one seating; its id goes to create_reservation.",
  auth: "none",
  readOnly: true,
  input: StrictObject({
    restaurant_id: RestaurantId,
    date: Type.String({ format: "date", description: "Tokyo date, YYYY-MM-DD, not in the past." }),
    party_size: Type.Optional(PartySize),
  }),
  output: Type.Object(
    {
      restaurant_id: Type.String(),
      date: Type.String(),
      party_size: Nullable(Type.Integer({ description: "The party_size asked for; null when none was." })),
      slots: Type.Array(Slot),
    },
    { additionalProperties: false },
  ),
  example: {
    input: { restaurant_id: "rst_instant", date: "2027-12-24", party_size: 2 },
    output: {
      restaurant_id: "rst_instant",
      date: "2027-12-24",
      party_size: 2,
      slots: [
        {
          id: "slot_instant_20271224_1730_c1",
          restaurant_id: "rst_instant",
          starts_at: "2027-12-24T17:30:00+09:00",
          ends_at: "2027-12-24T19:30:00+09:00",
          min_party_size: 1,
          max_party_size: 2,
          seating: "counter",
        },
      ],
    },
  },
  check({ date }, ctx) {
    const today = tokyoDate(ctx.clock.now());
    if (typeof date !== "string" || date >= today) return [];
    return [
      {
        message: `date ${date} is in the past (today in Tokyo is ${today})`,
        problems: [{ path: "/date", message: `must be today (${today}) or later` }],
      },
    ];
  },
  async handle(input, ctx) {
    const body = await site.availability(ctx, input.restaurant_id, input.date, input.party_size);
    return {
      data: {
        restaurant_id: input.restaurant_id,
        date: input.date,
        party_size: input.party_size ?? null,
        slots: body.slots.map((slot) => toSlot(input.restaurant_id, slot)),
      },
    };
  },
});
