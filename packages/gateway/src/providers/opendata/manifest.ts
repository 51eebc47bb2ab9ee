// opendata: Japanese public data (postal codes, national holidays) from a zipcloud-style upstream.
import { Type } from "@sinclair/typebox";
import { GatewayError } from "../../core/errors.ts";
import { PatternString, StrictObject } from "../schemas.ts";
import { defineOperation, defineProvider } from "../types.ts";

// A zipcloud-style API answers 200 with `results: null` for a postal code it does not know.
interface UpstreamPostal {
  results:
    | null
    | {
        zipcode: string;
        prefcode: string;
        address1: string;
        address2: string;
        address3: string;
        kana1: string;
        kana2: string;
        kana3: string;
      }[];
}

interface UpstreamHolidays {
  year: number;
  results: { date: string; dayOfWeekEn: string; name: string; nameEn: string; type: string }[];
}

const Address = Type.Object(
  {
    postal_code: Type.String({ pattern: "^[0-9]{7}$" }),
    prefecture_code: Type.String(),
    prefecture: Type.String(),
    city: Type.String(),
    town: Type.String(),
    prefecture_kana: Type.String(),
    city_kana: Type.String(),
    town_kana: Type.String(),
  },
  { additionalProperties: false },
);

const lookupPostalCode = defineOperation({
  id: "lookup_postal_code",
  summary: "Look up a Japanese postal code",
  description:
    "The addresses (prefecture, city, town, with kana readings) of a 7-digit postal code, with or without the hyphen.",
  auth: "none",
  readOnly: true,
  input: StrictObject({
    postal_code: PatternString(
      "^[0-9]{3}-?[0-9]{4}$",
      "must be 7 digits, with or without a hyphen after the third (1000001 or 100-0001)",
      {
        description: "e.g. 1000001 or 100-0001",
      },
    ),
  }),
  output: Type.Object({ postal_code: Type.String(), addresses: Type.Array(Address) }, { additionalProperties: false }),
  example: {
    input: { postal_code: "1000001" },
    output: {
      postal_code: "1000001",
      addresses: [
        {
          postal_code: "1000001",
          prefecture_code: "13",
          prefecture: "東京都",
          city: "千代田区",
          town: "千代田",
          prefecture_kana: "トウキョウト",
          city_kana: "チヨダク",
          town_kana: "チヨダ",
        },
      ],
    },
  },
  async handle(input, ctx) {
    const postalCode = input.postal_code.replace("-", "");
    // The upstream answers 20 towns unless asked for more, up to 100: a code that covers more is listed whole.
    const body = await ctx.upstream.request<UpstreamPostal>({
      path: "/api/search",
      query: { zipcode: postalCode, limit: "100" },
    });
    if (body.results === null || (Array.isArray(body.results) && body.results.length === 0)) {
      throw new GatewayError("not_found", `The opendata provider has no address for postal code ${postalCode}`, {
        provider: "opendata",
      });
    }
    // Any other shape fails in the mapping below: a 502 with `provider` (http/execute.ts).
    return {
      data: {
        postal_code: postalCode,
        addresses: body.results.map((r) => ({
          postal_code: r.zipcode,
          prefecture_code: r.prefcode,
          prefecture: r.address1,
          city: r.address2,
          town: r.address3,
          prefecture_kana: r.kana1,
          city_kana: r.kana2,
          town_kana: r.kana3,
        })),
      },
    };
  },
});

const Holiday = Type.Object(
  {
    date: Type.String({ format: "date" }),
    day_of_week: Type.String({ description: "Mon … Sun" }),
    name: Type.String({ description: "Japanese name" }),
    name_en: Type.String(),
    kind: Type.Union([Type.Literal("national"), Type.Literal("substitute"), Type.Literal("citizens")], {
      description: "national holiday, substitute holiday (振替休日) or citizens' holiday (国民の休日)",
    }),
  },
  { additionalProperties: false },
);

const listHolidays = defineOperation({
  id: "list_holidays",
  summary: "List Japan's national holidays of a year",
  description: "Every national, substitute and citizens' holiday of the year, in date order (years 2000 to 2035).",
  auth: "none",
  readOnly: true,
  input: StrictObject({ year: Type.Integer({ minimum: 2000, maximum: 2035 }) }),
  output: Type.Object({ year: Type.Integer(), holidays: Type.Array(Holiday) }, { additionalProperties: false }),
  example: {
    input: { year: 2026 },
    output: {
      year: 2026,
      holidays: [
        { date: "2026-01-01", day_of_week: "Thu", name: "元日", name_en: "New Year's Day", kind: "national" },
        { date: "2026-05-06", day_of_week: "Wed", name: "振替休日", name_en: "Substitute Holiday", kind: "substitute" },
      ],
    },
  },
  async handle(input, ctx) {
    const body = await ctx.upstream.request<UpstreamHolidays>({ path: "/api/holidays", query: { year: input.year } });
    return {
      data: {
        year: body.year,
        holidays: body.results.map((h) => ({
          date: h.date,
          day_of_week: h.dayOfWeekEn,
          name: h.name,
          name_en: h.nameEn,
          kind: h.type as "national" | "substitute" | "citizens",
        })),
      },
    };
  },
});

export const opendataProvider = defineProvider({
  id: "opendata",
  title: "Open data",
  description: "Japanese public data: postal codes and national holidays.",
  sandbox: "opendata",
  upstreamErrorMessage: (body) => (body as { message?: string } | null)?.message ?? undefined,
  operations: [lookupPostalCode, listHolidays],
});
