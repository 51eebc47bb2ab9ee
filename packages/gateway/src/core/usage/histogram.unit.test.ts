// Latency histograms: buckets grow 25 % each, quantiles land within a bucket's width of the true value, and merged
// histograms (rows of several nodes and minutes) answer the same as one.
import { describe, expect, it } from "vitest";
import { addTo, bucketOf, type Histogram, merge, quantile, toJson } from "./histogram.ts";

const fill = (values: number[]): Histogram => {
  const histogram: Histogram = new Map();
  for (const value of values) addTo(histogram, bucketOf(value));
  return histogram;
};

describe("latency histograms", () => {
  it("answer null without data", () => {
    expect(quantile(new Map(), 0.5)).toBeNull();
  });

  it("put sub-millisecond and huge latencies in the first and last buckets", () => {
    expect(bucketOf(0)).toBe(0);
    expect(bucketOf(0.1)).toBe(0);
    expect(bucketOf(1e9)).toBe(80);
  });

  it("estimate p50 and p95 within 12 % of the true values", () => {
    const values = Array.from({ length: 1000 }, (_, i) => 1 + i * 0.5);
    const histogram = fill(values);
    const p50 = quantile(histogram, 0.5) ?? 0;
    const p95 = quantile(histogram, 0.95) ?? 0;
    expect(Math.abs(p50 - 250.5) / 250.5).toBeLessThan(0.12);
    expect(Math.abs(p95 - 475.5) / 475.5).toBeLessThan(0.12);
  });

  it("merge by addition, through their JSON form", () => {
    const merged: Histogram = new Map();
    merge(merged, toJson(fill([5, 5, 5])));
    merge(merged, toJson(fill([5, 400])));
    expect(merged).toEqual(fill([5, 5, 5, 5, 400]));
    expect(quantile(merged, 0.5)).toBe(quantile(fill([5, 5, 5, 5, 400]), 0.5));
  });
});
