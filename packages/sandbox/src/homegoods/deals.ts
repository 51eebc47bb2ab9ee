// Today's deals: eight discounted products per calendar day (Japan time), chosen by a PRNG seeded with the date, so a
// given date always has the same deals and the next day has different ones.
import { badRequest } from "../shared/errors.ts";
import { seededRandom } from "../shared/random.ts";
import { type HomegoodsData, IMAGE_HOST } from "./data.ts";

export interface DealItem {
  productCode: string;
  productName: string;
  imageUrl: string;
  categoryCode: string;
  listPrice: number;
  dealPrice: number;
  discountRate: number;
  stockLimit: number;
}

export interface DailyDeal {
  dealCode: string;
  dealDate: string;
  title: string;
  bannerImageUrl: string;
  startsAt: string;
  endsAt: string;
  items: DealItem[];
}

const DEALS_PER_DAY = 8;

export function tokyoToday(now: Date = new Date()): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Tokyo" }).format(now);
}

/** Accepts YYYY-MM-DD naming a real calendar day between 2020 and 2035. */
export function parseDealDate(value: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const parsed = match === null ? Number.NaN : Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  if (Number.isNaN(parsed) || new Date(parsed).toISOString().slice(0, 10) !== value) {
    throw badRequest("date must be a calendar date in the form YYYY-MM-DD");
  }
  if (value < "2020-01-01" || value > "2035-12-31") throw badRequest("date must be between 2020-01-01 and 2035-12-31");
  return value;
}

export function dealsFor(data: HomegoodsData, date: string): DailyDeal {
  const random = seededRandom(`homegoods:deals:${date}`);
  const eligible = data.products.filter((p) => p.stockStatus !== "BACKORDER");
  const items = random.sample(eligible, DEALS_PER_DAY).map((product): DealItem => {
    const discountRate = random.pick([10, 15, 20, 25, 30, 40]);
    return {
      productCode: product.productCode,
      productName: product.productName,
      imageUrl: product.imageUrl,
      categoryCode: product.primaryCategoryCode,
      listPrice: product.listPrice,
      dealPrice: Math.floor((product.listPrice * (100 - discountRate)) / 1000) * 10,
      discountRate,
      stockLimit: random.int(2, 20) * 10,
    };
  });
  const [, month, day] = date.split("-").map(Number);
  return {
    dealCode: `deal-${date.replaceAll("-", "")}`,
    dealDate: date,
    title: `本日のお買い得 ${month}月${day}日`,
    bannerImageUrl: `${IMAGE_HOST}/deals/${date}/banner.jpg`,
    startsAt: `${date}T00:00:00+09:00`,
    endsAt: `${date}T23:59:59+09:00`,
    items,
  };
}
