// Trending search keywords for three aggregation periods, each with the previous period's rank for up/down arrows.
import { seededRandom } from "../shared/random.ts";

export type TrendPeriod = "daily" | "weekly" | "monthly";

export interface SearchTrend {
  rank: number;
  keyword: string;
  genreId: number;
  searchCount: number;
  previousRank: number | null;
  rankChange: "up" | "down" | "same" | "new";
}

export interface TrendReport {
  period: TrendPeriod;
  aggregatedFrom: string;
  aggregatedTo: string;
  trends: SearchTrend[];
}

// keyword, leaf genre, base daily searches
const KEYWORDS: readonly (readonly [string, number, number])[] = [
  ["米 5kg", 101, 9200],
  ["コシヒカリ", 101, 6100],
  ["無洗米", 101, 4800],
  ["味噌 無添加", 102, 2100],
  ["醤油", 102, 1900],
  ["抹茶 お菓子", 103, 3300],
  ["ミックスナッツ", 103, 5200],
  ["バターサンド", 103, 2600],
  ["麦茶 ティーバッグ", 201, 3900],
  ["緑茶 ペットボトル", 201, 4400],
  ["コーヒー豆", 202, 5600],
  ["ドリップバッグ", 202, 3700],
  ["炭酸水", 203, 8800],
  ["天然水 2l", 203, 7300],
  ["フライパン", 301, 4100],
  ["包丁", 301, 2900],
  ["有田焼", 302, 1500],
  ["保存容器", 303, 2700],
  ["炊飯器", 401, 6900],
  ["電気ケトル", 401, 3500],
  ["オーブンレンジ", 401, 2800],
  ["掃除機 コードレス", 402, 6400],
  ["ロボット掃除機", 402, 4700],
  ["加湿器", 403, 7900],
  ["ヒーター", 403, 6600],
  ["扇風機", 403, 1200],
  ["洗濯洗剤", 501, 5100],
  ["トイレットペーパー", 502, 8300],
  ["バスタオル", 503, 3100],
  ["日焼け止め", 601, 4200],
  ["化粧水", 601, 3800],
  ["シャンプー", 602, 4500],
  ["トートバッグ", 702, 2500],
  ["リュック", 702, 3600],
  ["スニーカー", 703, 2900],
  ["手帳 2026", 802, 6200],
  ["ボールペン", 801, 1700],
  ["テント", 901, 2300],
  ["焚き火台", 901, 1900],
  ["ヨガマット", 902, 2600],
];

const PERIODS: Record<TrendPeriod, readonly [string, string, number]> = {
  daily: ["2026-01-14", "2026-01-14", 1],
  weekly: ["2026-01-05", "2026-01-11", 7],
  monthly: ["2025-12-01", "2025-12-31", 31],
};

function ranked(period: TrendPeriod, seed: string): Map<string, number> {
  const random = seededRandom(`catalog:trends:${period}:${seed}`);
  const days = PERIODS[period][2];
  const scored = KEYWORDS.map(
    ([keyword, , base]) => [keyword, Math.round(base * days * (0.6 + random.next()))] as const,
  );
  scored.sort((a, b) => b[1] - a[1]);
  return new Map(scored.map(([keyword, count]) => [keyword, count]));
}

const rankChange = (previousRank: number | null, rank: number): SearchTrend["rankChange"] =>
  previousRank === null ? "new" : previousRank > rank ? "up" : previousRank < rank ? "down" : "same";

export function buildTrendReport(period: TrendPeriod): TrendReport {
  const current = ranked(period, "current");
  const previousOrder = [...ranked(period, "previous").keys()].slice(0, 30);
  const trends = [...current.entries()].map(([keyword, searchCount], index): SearchTrend => {
    const genreId = KEYWORDS.find(([k]) => k === keyword)?.[1] ?? 0;
    const previous = previousOrder.indexOf(keyword);
    const previousRank = previous === -1 ? null : previous + 1;
    const rank = index + 1;
    return { rank, keyword, genreId, searchCount, previousRank, rankChange: rankChange(previousRank, rank) };
  });
  const [aggregatedFrom, aggregatedTo] = PERIODS[period];
  return { period, aggregatedFrom, aggregatedTo, trends };
}

/**
 * A genre's own ranking: `trends` (the overall ranking's keywords of that genre, in order) ranked 1, 2, … among
 * themselves, this period and the previous one (a keyword unranked then stays new).
 */
export function rankedAmong(trends: readonly SearchTrend[]): SearchTrend[] {
  const previousRanks = trends.flatMap((t) => (t.previousRank === null ? [] : [t.previousRank])).sort((a, b) => a - b);
  return trends.map((trend, index) => {
    const rank = index + 1;
    const previousRank = trend.previousRank === null ? null : previousRanks.indexOf(trend.previousRank) + 1;
    return { ...trend, rank, previousRank, rankChange: rankChange(previousRank, rank) };
  });
}
