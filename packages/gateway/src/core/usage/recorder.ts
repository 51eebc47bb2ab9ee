// Per-request usage, recorded cheaply: each node adds requests to in-memory per-minute aggregates (account, provider,
// operation, status) and writes what it counted to usage_minutes every few seconds in one insert, never one write
// per request. Rows older than the retention are pruned hourly.
import type { Kysely } from "kysely";
import type { Database, UsageMinutesTable } from "../../store/schema.ts";
import type { Clock } from "../clock.ts";
import { addTo, bucketOf, type Histogram, toJson } from "./histogram.ts";

export interface UsageSample {
  accountId: string;
  providerId: string;
  operationId: string;
  status: number;
  latencyMs: number;
}

interface Aggregate {
  sample: Omit<UsageSample, "latencyMs">;
  minute: number;
  count: number;
  latency: Histogram;
}

export const usageRetentionMs = 8 * 24 * 3600 * 1000;
const pruneIntervalMs = 3600 * 1000;
const rowsPerInsert = 500;

export class UsageRecorder {
  private pending = new Map<string, Aggregate>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private lastPrune = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  record(sample: UsageSample): void {
    const minute = Math.floor(this.clock.now() / 60_000) * 60_000;
    const key = `${sample.accountId}\u0000${sample.providerId}\u0000${sample.operationId}\u0000${sample.status}\u0000${minute}`;
    let aggregate = this.pending.get(key);
    if (!aggregate) {
      const { latencyMs: _, ...rest } = sample;
      aggregate = { sample: rest, minute, count: 0, latency: new Map() };
      this.pending.set(key, aggregate);
    }
    aggregate.count += 1;
    addTo(aggregate.latency, bucketOf(sample.latencyMs));
  }

  /** Writes everything counted so far; concurrent calls queue behind each other. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write()).catch(() => {});
    return this.flushing;
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }

  private restore(key: string, aggregate: Aggregate): void {
    const current = this.pending.get(key);
    if (!current) {
      this.pending.set(key, aggregate);
      return;
    }
    current.count += aggregate.count;
    for (const [bucket, count] of aggregate.latency) addTo(current.latency, bucket, count);
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const rows: UsageMinutesTable[] = [...batch.values()].map(({ sample, minute, count, latency }) => ({
      account_id: sample.accountId,
      provider_id: sample.providerId,
      operation_id: sample.operationId,
      status: sample.status,
      minute,
      count,
      latency_buckets: toJson(latency),
    }));
    try {
      await this.db.transaction().execute(async (trx) => {
        for (let i = 0; i < rows.length; i += rowsPerInsert) {
          await trx
            .insertInto("usage_minutes")
            .values(rows.slice(i, i + rowsPerInsert))
            .execute();
        }
      });
    } catch (error) {
      // Keep the counts for the next flush rather than lose them (the store may be back by then).
      for (const [key, aggregate] of batch) this.restore(key, aggregate);
      throw error;
    }
    const now = this.clock.now();
    if (now - this.lastPrune >= pruneIntervalMs) {
      this.lastPrune = now;
      await this.db
        .deleteFrom("usage_minutes")
        .where("minute", "<", now - usageRetentionMs)
        .execute();
    }
  }
}
