// Latency histograms with logarithmic buckets (each 25 % wider than the last, from 0.25 ms): small enough to store
// per minute as JSON, mergeable by addition, and precise to about ±12 % for percentiles.
const base = 0.25;
const factor = 1.25;
const lastBucket = 80;

/** Bucket index → number of requests. */
export type Histogram = Map<number, number>;

export function bucketOf(latencyMs: number): number {
  if (!(latencyMs > base)) return 0;
  return Math.min(lastBucket, Math.ceil(Math.log(latencyMs / base) / Math.log(factor)));
}

export function addTo(histogram: Histogram, bucket: number, count = 1): void {
  histogram.set(bucket, (histogram.get(bucket) ?? 0) + count);
}

export function merge(into: Histogram, json: string): void {
  for (const [bucket, count] of Object.entries(JSON.parse(json) as Record<string, number>)) {
    addTo(into, Number(bucket), count);
  }
}

export const toJson = (histogram: Histogram) => JSON.stringify(Object.fromEntries(histogram));

/** The q-quantile (0 < q ≤ 1) in milliseconds, the geometric middle of its bucket; null without data. */
export function quantile(histogram: Histogram, q: number): number | null {
  const total = [...histogram.values()].reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const bucket of [...histogram.keys()].sort((a, b) => a - b)) {
    seen += histogram.get(bucket) ?? 0;
    if (seen >= rank) return Math.round(base * factor ** (bucket - 0.5) * 100) / 100;
  }
  return null;
}
