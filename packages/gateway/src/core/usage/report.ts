// The usage report behind the console's charts: requests and errors over time, errors by code, and p50/p95 latency
// per operation, for one account over the last hour (one-minute bars) or day (half-hour bars).
import type { Kysely } from "kysely";
import type { Database } from "../../store/schema.ts";
import { errorCatalogue } from "../errors.ts";
import { type Histogram, merge, quantile } from "./histogram.ts";

export type UsageWindow = "hour" | "day";

export interface UsageReport {
  window: UsageWindow;
  from: string;
  to: string;
  bucket_seconds: number;
  totals: { requests: number; errors: number; p50_ms: number | null; p95_ms: number | null };
  series: { start: string; requests: number; errors: number }[];
  errors_by_code: { code: string; status: number; count: number }[];
  operations: {
    provider_id: string;
    operation_id: string;
    requests: number;
    errors: number;
    p50_ms: number | null;
    p95_ms: number | null;
  }[];
}

const windows = {
  hour: { spanMs: 3600_000, bucketMs: 60_000 },
  day: { spanMs: 24 * 3600_000, bucketMs: 30 * 60_000 },
} as const;

const codeOfStatus = new Map<number, string>(
  Object.entries(errorCatalogue).map(([code, { status }]) => [status, code]),
);
export const errorCodeOf = (status: number) => codeOfStatus.get(status) ?? `http_${status}`;

export async function usageReport(
  db: Kysely<Database>,
  accountId: string,
  window: UsageWindow,
  now: number,
): Promise<UsageReport> {
  const { spanMs, bucketMs } = windows[window];
  const to = Math.floor(now / bucketMs) * bucketMs + bucketMs;
  const from = to - spanMs;
  const rows = await db
    .selectFrom("usage_minutes")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("minute", ">=", from)
    .where("minute", "<", to)
    .execute();

  const series = Array.from({ length: spanMs / bucketMs }, (_, i) => ({
    start: from + i * bucketMs,
    requests: 0,
    errors: 0,
  }));
  const byCode = new Map<number, number>();
  const operations = new Map<
    string,
    { provider_id: string; operation_id: string; requests: number; errors: number; latency: Histogram }
  >();
  const overall: Histogram = new Map();
  let requests = 0;
  let errors = 0;
  for (const row of rows) {
    const count = Number(row.count);
    const failed = row.status >= 400;
    const point = series[Math.floor((Number(row.minute) - from) / bucketMs)];
    if (point) {
      point.requests += count;
      if (failed) point.errors += count;
    }
    requests += count;
    if (failed) {
      errors += count;
      byCode.set(row.status, (byCode.get(row.status) ?? 0) + count);
    }
    const key = `${row.provider_id}:${row.operation_id}`;
    let op = operations.get(key);
    if (!op) {
      op = { provider_id: row.provider_id, operation_id: row.operation_id, requests: 0, errors: 0, latency: new Map() };
      operations.set(key, op);
    }
    op.requests += count;
    if (failed) op.errors += count;
    merge(op.latency, row.latency_buckets);
    merge(overall, row.latency_buckets);
  }

  return {
    window,
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    bucket_seconds: bucketMs / 1000,
    totals: { requests, errors, p50_ms: quantile(overall, 0.5), p95_ms: quantile(overall, 0.95) },
    series: series.map((p) => ({ ...p, start: new Date(p.start).toISOString() })),
    errors_by_code: [...byCode.entries()]
      .map(([status, count]) => ({ code: errorCodeOf(status), status, count }))
      .sort((a, b) => b.count - a.count),
    operations: [...operations.values()]
      .map(({ latency, ...op }) => ({ ...op, p50_ms: quantile(latency, 0.5), p95_ms: quantile(latency, 0.95) }))
      .sort((a, b) => b.requests - a.requests),
  };
}
