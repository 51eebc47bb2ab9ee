// Customer reviews: 2 to 9 per item, ratings skewed towards 4 and 5 like a real shop, Japanese titles and comments.
import { seededRandom } from "../shared/random.ts";
import type { CatalogItem } from "./products.ts";

export interface CatalogReview {
  reviewId: string;
  itemCode: string;
  rating: 1 | 2 | 3 | 4 | 5;
  title: string;
  comment: string;
  nickname: string;
  ageGroup: string;
  postedAt: string;
  helpfulCount: number;
  purchaseVerified: boolean;
}

const TEXTS: Record<CatalogReview["rating"], readonly (readonly [string, string])[]> = {
  5: [
    ["大満足です", "期待以上の品質でした。リピート確定です。"],
    ["買ってよかった", "家族にも好評で、毎日使っています。梱包も丁寧でした。"],
    ["最高", "注文の翌日に届きました。この価格でこの品質は驚きです。"],
    ["リピートしています", "何度も購入しています。安定の品質で安心です。"],
  ],
  4: [
    ["概ね満足", "品質は良いです。もう少し安ければ星5でした。"],
    ["良い商品です", "写真どおりの商品でした。配送が少し遅かったので星4つ。"],
    ["使いやすい", "使い勝手が良く、気に入っています。"],
  ],
  3: [
    ["普通です", "可もなく不可もなく、価格相応だと思います。"],
    ["まあまあ", "悪くはないですが、特別良いとも感じませんでした。"],
  ],
  2: [["期待外れ", "思っていたより小さく、少し残念でした。"]],
  1: [["残念でした", "届いた商品に傷がありました。問い合わせへの対応は丁寧でした。"]],
};
const NICKNAMES = [
  "さくら123",
  "東京のパパ",
  "ねこすき",
  "たろう",
  "みかん箱",
  "週末キャンパー",
  "うさぎ",
  "hinata_fan",
];
const AGE_GROUPS = ["10代", "20代", "30代", "40代", "50代", "60代以上"];
const RATING_WEIGHTS: readonly CatalogReview["rating"][] = [5, 5, 5, 5, 4, 4, 4, 3, 3, 2, 1];

function postedAt(random: ReturnType<typeof seededRandom>): string {
  // Between 2024-01-01 and 2026-01-10, Japan time.
  const start = Date.UTC(2024, 0, 1, 0, 0) / 1000;
  const seconds = start + random.int(0, 740 * 24 * 3600);
  const tokyo = new Date((seconds + 9 * 3600) * 1000).toISOString().slice(0, 19);
  return `${tokyo}+09:00`;
}

export function buildReviews(items: readonly CatalogItem[]): Map<string, CatalogReview[]> {
  const random = seededRandom("catalog:reviews");
  const byItem = new Map<string, CatalogReview[]>();
  let serial = 0;
  for (const item of items) {
    const reviews: CatalogReview[] = [];
    const count = random.int(2, 9);
    for (let n = 0; n < count; n++) {
      serial += 1;
      const rating = random.pick(RATING_WEIGHTS);
      const [title, comment] = random.pick(TEXTS[rating]);
      reviews.push({
        reviewId: `cat-rev-${String(serial).padStart(5, "0")}`,
        itemCode: item.itemCode,
        rating,
        title,
        comment,
        nickname: random.pick(NICKNAMES),
        ageGroup: random.pick(AGE_GROUPS),
        postedAt: postedAt(random),
        helpfulCount: random.int(0, 40),
        purchaseVerified: random.chance(0.85),
      });
    }
    reviews.sort((a, b) => b.postedAt.localeCompare(a.postedAt));
    byItem.set(item.itemCode, reviews);
    item.reviewCount = reviews.length;
    item.reviewAverage = Math.round((reviews.reduce((sum, r) => sum + r.rating, 0) / reviews.length) * 100) / 100;
  }
  return byItem;
}
