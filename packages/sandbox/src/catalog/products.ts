// ~200 catalogue items generated from the genre tree's product lines with a seeded PRNG: the same items, prices and
// JAN codes on every build.
import { seededRandom, shopPrice } from "../shared/random.ts";
import type { GenreSeed } from "./genres.ts";

export const ITEM_COUNT = 200;
export const SITE_HOST = "https://hinata-store.example.jp";
export const IMAGE_HOST = "https://img.hinata-store.example.jp";
export const DATA_UPDATED_AT = "2026-01-15T09:00:00+09:00";

export interface CatalogItem {
  itemCode: string;
  itemName: string;
  catchcopy: string;
  itemCaption: string;
  itemPrice: number;
  taxRate: 8 | 10;
  postageFlag: 0 | 1;
  pointRate: number;
  genreId: number;
  genreName: string;
  shopCode: string;
  shopName: string;
  janCode: string;
  itemUrl: string;
  imageUrls: string[];
  availability: boolean;
  reviewCount: number;
  reviewAverage: number;
  tags: string[];
  releaseDate: string;
  updatedAt: string;
}

const TAGS = [
  "送料無料",
  "ポイント5倍",
  "あす楽",
  "ギフト対応",
  "国産",
  "期間限定",
  "まとめ買い割引",
  "レビュー高評価",
];
const CATCHCOPIES = [
  "【公式】定番の人気商品",
  "＼ランキング1位獲得／",
  "【まとめ買いでお得】",
  "毎日使いたい、確かな品質",
  "【新生活応援】",
  "プロも愛用する逸品",
];
const EDITIONS = [
  ["", 1],
  [" 2個セット", 1.9],
  [" ギフト包装", 1.1],
  [" 訳あり アウトレット", 0.7],
] as const;
const FOOD_GENRES = new Set([100, 200]);

function janCode(serial: number): string {
  const body = `4912345${String(serial).padStart(5, "0")}`;
  const sum = [...body].reduce((acc, digit, i) => acc + Number(digit) * (i % 2 === 0 ? 1 : 3), 0);
  return `${body}${(10 - (sum % 10)) % 10}`;
}

export function buildItems(roots: readonly GenreSeed[]): CatalogItem[] {
  const random = seededRandom("catalog:items");
  const leaves = roots.flatMap((root) => (root.children ?? []).map((leaf) => ({ root, leaf })));
  const shops = [...new Set(leaves.flatMap(({ leaf }) => (leaf.lines ?? []).map((l) => l.shop)))];
  const items: CatalogItem[] = [];
  for (let i = 0; i < ITEM_COUNT; i++) {
    const { root, leaf } = leaves[i % leaves.length]!;
    const lines = leaf.lines ?? [];
    const round = Math.floor(i / leaves.length);
    const line = lines[round % lines.length]!;
    const variantRound = Math.floor(round / lines.length);
    const [variant, multiplier] = line.variants[variantRound % line.variants.length]!;
    // Once a line's variants are used up, further items are bundles or gift editions, so names stay distinct.
    const [edition, editionMultiplier] = EDITIONS[Math.floor(variantRound / line.variants.length) % EDITIONS.length]!;
    const itemCode = `cat-prd-${String(i + 1).padStart(4, "0")}`;
    const price = shopPrice(line.basePrice * multiplier * editionMultiplier * (0.9 + random.next() * 0.2));
    const tags = random.sample(TAGS, random.int(1, 3));
    if (price >= 3980 && !tags.includes("送料無料")) tags.unshift("送料無料");
    items.push({
      itemCode,
      itemName: `${line.name} ${variant}${edition}`,
      catchcopy: random.pick(CATCHCOPIES),
      itemCaption: `${line.name}（${variant}）。${line.shop}が自信を持ってお届けする${leaf.genreName}です。`,
      itemPrice: price,
      taxRate: FOOD_GENRES.has(root.genreId) ? 8 : 10,
      postageFlag: tags.includes("送料無料") ? 1 : 0,
      pointRate: random.pick([1, 1, 1, 2, 5]),
      genreId: leaf.genreId,
      genreName: leaf.genreName,
      shopCode: `shop-${String(shops.indexOf(line.shop) + 1).padStart(2, "0")}`,
      shopName: line.shop,
      janCode: janCode(i + 1),
      itemUrl: `${SITE_HOST}/items/${itemCode}`,
      imageUrls: [1, 2, 3].slice(0, random.int(1, 3)).map((n) => `${IMAGE_HOST}/items/${itemCode}/${n}.jpg`),
      // Every 37th item is sold out, so availability filters and pickup checks have something to find.
      availability: (i + 1) % 37 !== 0,
      reviewCount: 0,
      reviewAverage: 0,
      tags,
      releaseDate: `${random.int(2022, 2025)}-${String(random.int(1, 12)).padStart(2, "0")}-${String(random.int(1, 28)).padStart(2, "0")}`,
      updatedAt: DATA_UPDATED_AT,
    });
  }
  return items;
}
