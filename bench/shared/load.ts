// Load generation with autocannon and the figures every benchmark prints.
import autocannon from "autocannon";

export interface LoadOptions {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** Seconds. */
  duration?: number;
  /** A number of requests to send instead of a duration. */
  amount?: number;
  connections?: number;
  /** "[<id>]" in a header or the body becomes an id unique to each request (a fresh Idempotency-Key each time). */
  idReplacement?: boolean;
  /** Seconds a request may take before it counts as an error (autocannon's default: 10). */
  timeout?: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? "POST",
    headers: options.headers ?? {},
    ...(options.body !== undefined && { body: options.body }),
    ...(options.amount === undefined ? { duration: options.duration ?? 10 } : { amount: options.amount }),
    connections: options.connections ?? 32,
    pipelining: 1,
    idReplacement: options.idReplacement ?? false,
    timeout: options.timeout ?? 10,
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

export function printTable(title: string, rows: Record<string, string | number>[]): void {
  console.log(`\n${title}`);
  console.table(rows);
}

/** The middle value, or the mean of the two middle values of an even count; 0 without values. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  if (sorted.length === 0) return 0;
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
