// The home-goods store's dataset: a category index and ~150 products (two colours per product line), built afresh
// and identically for every sandbox instance from a seeded PRNG.
import { seededRandom } from "../shared/random.ts";
import { type CategorySeed, categorySeeds, FEATURE_CATEGORY_CODE } from "./categories.ts";

export const ROOT_CATEGORY_CODE = "hg-root";
export const SITE_URL = "https://kurashi-no-mori.example.jp";
export const IMAGE_HOST = "https://img.kurashi-no-mori.example.jp";
export const DATA_UPDATED_AT = "2026-01-15T06:00:00+09:00";

export interface HomeCategory {
  categoryCode: string;
  categoryName: string;
  categoryNameEn: string;
  imageUrl: string | null;
  level: number;
  parentCode: string | null;
  sortOrder: number;
  productCount: number;
  childCodes: string[];
}

export type StockStatus = "IN_STOCK" | "LOW_STOCK" | "BACKORDER";

export interface HomeProduct {
  productCode: string;
  productName: string;
  colorName: string;
  description: string;
  listPrice: number;
  salePrice: number | null;
  currencyCode: "JPY";
  imageUrl: string;
  imageUrls: string[];
  ratingAverage: number;
  reviewCount: number;
  stockStatus: StockStatus;
  deliveryDays: number;
  primaryCategoryCode: string;
  categoryCodes: string[];
  releasedAt: string;
}

export interface HomegoodsData {
  categories: Map<string, HomeCategory>;
  products: HomeProduct[];
  productsByCode: Map<string, HomeProduct>;
}

const COLORS = ["ナチュラル", "ホワイト", "グレー", "ブラウン", "ネイビー", "ベージュ", "ブラック", "グリーン"];

/** Nitori-style prices: 39,900 / 12,900 / 1,990 / 990. */
const storePrice = (raw: number): number =>
  raw >= 10_000 ? Math.round(raw / 1000) * 1000 - 100 : Math.round(raw / 100) * 100 - 10;

function buildProducts(): HomeProduct[] {
  const random = seededRandom("homegoods:products");
  const products: HomeProduct[] = [];
  const visit = (seed: CategorySeed): void => {
    for (const child of seed.children ?? []) visit(child);
    for (const [lineName, basePrice] of seed.lines ?? []) {
      for (const colorName of random.sample(COLORS, 2)) {
        const productCode = `hgp-${String(products.length + 1).padStart(4, "0")}`;
        const listPrice = storePrice(basePrice * (0.95 + random.next() * 0.1));
        const onSale = random.chance(0.25);
        products.push({
          productCode,
          productName: `${lineName} ${colorName}`,
          colorName,
          description: `${seed.name}の定番「${lineName}」。${colorName}のカラーはどんなお部屋にもなじみます。`,
          listPrice,
          salePrice: onSale ? storePrice(listPrice * 0.8) : null,
          currencyCode: "JPY",
          imageUrl: `${IMAGE_HOST}/products/${productCode}/main.jpg`,
          imageUrls: [1, 2, 3, 4]
            .slice(0, random.int(2, 4))
            .map((n) => `${IMAGE_HOST}/products/${productCode}/${n}.jpg`),
          ratingAverage: Math.round((3.2 + random.next() * 1.8) * 10) / 10,
          reviewCount: random.int(0, 480),
          stockStatus: random.pick<StockStatus>(["IN_STOCK", "IN_STOCK", "IN_STOCK", "LOW_STOCK", "BACKORDER"]),
          deliveryDays: basePrice >= 10_000 ? random.int(5, 14) : random.int(1, 4),
          primaryCategoryCode: seed.code,
          // Every fifth product also appears in the featured collection.
          categoryCodes: products.length % 5 === 0 ? [seed.code, FEATURE_CATEGORY_CODE] : [seed.code],
          releasedAt: `${random.int(2021, 2025)}-${String(random.int(1, 12)).padStart(2, "0")}-01`,
        });
      }
    }
  };
  for (const seed of categorySeeds) visit(seed);
  return products;
}

function indexCategories(products: readonly HomeProduct[]): Map<string, HomeCategory> {
  const categories = new Map<string, HomeCategory>();
  const add = (seed: CategorySeed, level: number, parentCode: string | null, sortOrder: number): Set<string> => {
    const childCodes = (seed.children ?? []).map((child) => child.code);
    const inSubtree = new Set(products.filter((p) => p.categoryCodes.includes(seed.code)).map((p) => p.productCode));
    (seed.children ?? []).forEach((child, i) => {
      for (const code of add(child, level + 1, seed.code, i + 1)) inSubtree.add(code);
    });
    categories.set(seed.code, {
      categoryCode: seed.code,
      categoryName: seed.name,
      categoryNameEn: seed.nameEn,
      // Deep categories carry no banner; the root has its own.
      imageUrl: level >= 3 ? null : `${IMAGE_HOST}/categories/${seed.code}.jpg`,
      level,
      parentCode,
      sortOrder,
      productCount: inSubtree.size,
      childCodes,
    });
    return inSubtree;
  };
  add(
    { code: ROOT_CATEGORY_CODE, name: "すべてのカテゴリ", nameEn: "All categories", children: categorySeeds },
    0,
    null,
    0,
  );
  return categories;
}

export function buildHomegoodsData(): HomegoodsData {
  const products = buildProducts();
  return {
    categories: indexCategories(products),
    products,
    productsByCode: new Map(products.map((p) => [p.productCode, p])),
  };
}

/** The category and everything below it. */
export function subtreeCodes(data: HomegoodsData, code: string): Set<string> {
  const codes = new Set<string>([code]);
  for (const child of data.categories.get(code)?.childCodes ?? []) {
    for (const c of subtreeCodes(data, child)) codes.add(c);
  }
  return codes;
}

/** Root excluded, the category itself last. */
export function breadcrumbs(data: HomegoodsData, code: string): HomeCategory[] {
  const path: HomeCategory[] = [];
  for (let c = data.categories.get(code); c !== undefined && c.parentCode !== null; ) {
    path.unshift(c);
    c = data.categories.get(c.parentCode);
  }
  return path;
}
