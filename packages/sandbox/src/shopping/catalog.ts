// The shopping site's 200 products (prod_0001 … prod_0200) and their prices over time. Titles and list prices come
// from a seeded PRNG; the selling price moves every price period (default 10 minutes): a pure function of the seed,
// the product and the clock, so that tests can compute the price a product will have at any instant.
import { seededRandom, shopPrice } from "../shared/random.ts";

export const PRODUCT_COUNT = 200;
export const OFFLINE_SKU = "prod_offline";
export const DEFAULT_PRICE_SEED = "sakura-market";
export const DEFAULT_PRICE_PERIOD_MS = 10 * 60_000;

export interface ShopProduct {
  sku: string;
  item_name: string;
  brand: string;
  category: string;
  list_price_jpy: number;
}

/** [category, item, price range in yen, variants] */
const LINES: [string, string, [number, number], string[]][] = [
  ["食品", "新潟県産コシヒカリ", [2400, 4800], ["5kg", "10kg", "2kg"]],
  ["食品", "静岡県産 深蒸し煎茶", [800, 2400], ["100g", "200g", "ティーバッグ 50袋"]],
  ["食品", "北海道産 昆布だし", [500, 1600], ["300ml", "1L", "顆粒 50本"]],
  ["食品", "宇治抹茶 ラテの素", [600, 1500], ["10本入", "20本入"]],
  ["食品", "国産 はちみつ", [1200, 3600], ["250g", "500g"]],
  ["飲料", "天然水 南アルプス", [900, 1900], ["2L×6本", "550ml×24本"]],
  ["飲料", "ドリップコーヒー 深煎り", [700, 2200], ["20袋", "50袋"]],
  ["家電", "ワイヤレスイヤホン ノイズキャンセリング", [6800, 19800], ["ブラック", "ホワイト"]],
  ["家電", "電気ケトル 0.8L", [2980, 7980], ["マットブラック", "ホワイト"]],
  ["家電", "コードレス掃除機", [12800, 39800], ["スタンダード", "プロ"]],
  ["家電", "炊飯器 5.5合 IH", [9800, 29800], ["ブラック", "ホワイト"]],
  ["家電", "モバイルバッテリー 10000mAh", [1980, 4980], ["USB-C", "MagSafe対応"]],
  ["日用品", "ボックスティッシュ", [480, 980], ["5箱", "10箱"]],
  ["日用品", "食器用洗剤 詰め替え", [298, 880], ["400ml", "1000ml"]],
  ["日用品", "今治タオル フェイスタオル", [980, 3980], ["2枚組", "5枚組"]],
  ["日用品", "歯ブラシ やわらかめ", [198, 980], ["3本", "10本"]],
  ["文房具", "ゲルインクボールペン 0.5mm", [150, 1200], ["黒", "10色セット"]],
  ["文房具", "A5 方眼ノート", [180, 900], ["1冊", "5冊パック"]],
  ["衣料", "ヒートテック 長袖Tシャツ", [990, 2490], ["M", "L", "XL"]],
  ["衣料", "リネン シャツ", [2990, 5990], ["S", "M", "L"]],
  ["キッチン", "南部鉄器 急須", [4800, 12800], ["0.65L", "1.2L"]],
  ["キッチン", "包丁 三徳 170mm", [2980, 15800], ["ステンレス", "ダマスカス"]],
  ["アウトドア", "折りたたみ キャンプチェア", [2480, 8980], ["カーキ", "ブラック"]],
  ["ビューティー", "日焼け止め SPF50+", [680, 2480], ["50g", "90g"]],
  ["本", "はじめての TypeScript 入門", [2200, 3600], ["単行本", "電子書籍版"]],
];
const BRANDS = ["さくら印", "ひのき堂", "みなと製作所", "つばめ工房", "あおば商会", "こはる"];

/** The catalogue, built afresh (and identically) for every sandbox instance. */
export function buildProducts(): Map<string, ShopProduct> {
  const random = seededRandom("shopping:products");
  const products = new Map<string, ShopProduct>();
  for (let i = 1; i <= PRODUCT_COUNT; i++) {
    const [category, item, [low, high], variants] = LINES[(i - 1) % LINES.length]!;
    const round = Math.floor((i - 1) / LINES.length);
    const variant = variants[round % variants.length]!;
    const brand = BRANDS[(round + i) % BRANDS.length]!;
    const sku = `prod_${String(i).padStart(4, "0")}`;
    const name =
      round < variants.length ? `${item} ${variant}` : `${item} ${variant} (${round - variants.length + 2}個セット)`;
    products.set(sku, {
      sku,
      item_name: `【${brand}】${name}`,
      brand,
      category,
      list_price_jpy: shopPrice(random.int(low, high) * (round < variants.length ? 1 : round - variants.length + 2)),
    });
  }
  return products;
}

export interface PriceClock {
  seed: string;
  periodMs: number;
}

/** Index of the price period containing `at`: prices change only when it changes. */
export const pricePeriod = (clock: PriceClock, at: number): number => Math.floor(at / clock.periodMs);

/**
 * The selling price of a product during the period containing `at`: the list price most of the time, a sale of
 * 5–35 % off in about 40 % of the periods, a 5–10 % rise in about 10 %.
 */
export function priceAt(product: ShopProduct, clock: PriceClock, at: number): number {
  const random = seededRandom(`${clock.seed}:${product.sku}:${pricePeriod(clock, at)}`);
  const roll = random.next();
  const list = product.list_price_jpy;
  if (roll < 0.4) return Math.min(list, sale(list, random.int(1, 7) * 5));
  if (roll < 0.5) return Math.max(list, Math.round((list * (100 + random.int(5, 10))) / 100));
  return list;
}

function sale(list: number, percentOff: number): number {
  const raw = (list * (100 - percentOff)) / 100;
  // Shop-style endings (…480, …980, …98) on the discounted price, never above the list price.
  const rounded = shopPrice(raw);
  return rounded <= list ? rounded : Math.floor(raw);
}
