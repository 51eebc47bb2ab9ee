// bench/webhooks: the delivery worker draining a backlog of N events (claim, sign, POST, attempt log, state) against a
// baseline in the same run that POSTs the same bodies, signed, with a plain undici pool and no bookkeeping. Both use
// the same number of requests in flight and the same receiver, a node:http process answering 200.
// Run alone: node --import tsx bench/webhooks/index.ts [events]
import "../../packages/gateway/src/cli/tick-shapes.ts";
import path from "node:path";
import { sql } from "kysely";
import { Pool } from "undici";
import { applyServingV8Settings } from "../../packages/gateway/src/cli/v8-settings.ts";
import { flag } from "../../packages/gateway/src/config-values.ts";
import { Accounts } from "../../packages/gateway/src/core/accounts.ts";
import { systemClock } from "../../packages/gateway/src/core/clock.ts";
import { SecretBox } from "../../packages/gateway/src/core/crypto/secret-box.ts";
import { createWebhookServices, type WebhookServices } from "../../packages/gateway/src/core/webhooks/service.ts";
import { signatureHeader } from "../../packages/gateway/src/core/webhooks/signature.ts";
import { openStore, type Store } from "../../packages/gateway/src/store/database.ts";
import { printTable, round } from "../shared/load.ts";
import { firstLine, startNode } from "../shared/processes.ts";
import { type BenchStore, benchStorePlace, benchStores } from "../shared/stores.ts";

const concurrency = 64;
const endpointConcurrency = Number(process.env.BENCH_WEBHOOK_ENDPOINT_CONCURRENCY ?? concurrency);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

const median = (values: Measured[]): Measured => {
  const sorted = [...values].sort((a, b) => a.perSecond - b.perSecond);
  return sorted[Math.floor(sorted.length / 2)] as Measured;
};

interface Backlog {
  store: Store;
  services: WebhookServices;
  secret: string;
  close(): Promise<void>;
}

/** A store with an endpoint and N recorded events, the worker not yet started. */
export async function backlog(kind: BenchStore, receiverUrl: string, events: number): Promise<Backlog> {
  const place = await benchStorePlace(kind, "webhooks");
  const store = openStore({
    dataDir: place.dataDir,
    ...(place.postgres && { ...place.postgres, poolSize: 10 }),
    // GATEWAY_NO_PREPARED_STATEMENTS=1 in the benchmark's environment measures PostgreSQL without prepared statements.
    preparedStatements: !flag(process.env, "GATEWAY_NO_PREPARED_STATEMENTS"),
    // As `gateway serve` opens it: SQLite's log checkpointed on a worker thread.
    backgroundCheckpoints: { onError: (error) => console.error("background checkpoints stopped", error) },
  });
  await store.migrate();
  await new Accounts(store.db, systemClock).ensure("default");
  const services = createWebhookServices({
    store,
    clock: systemClock,
    secretBox: new SecretBox(Buffer.alloc(32, 1)),
    settings: {
      allowPrivate: true,
      timeoutMs: 10_000,
      pollIntervalMs: 1_000,
      leaseMs: 60_000,
      concurrency,
      // One endpoint may take every slot, so that both sides keep the same number of requests in flight to the one
      // receiver. BENCH_WEBHOOK_ENDPOINT_CONCURRENCY=16 measures a lone endpoint held to the default share.
      endpointConcurrency,
      userAgent: "ProviderGateway-Webhooks/1.0",
    },
    log: { error: (object, message) => console.error(message, object), info: () => {} },
  });
  const { secret } = await services.endpoints.set("default", { url: receiverUrl, event_types: ["*"] });
  for (let done = 0; done < events; done += 500) {
    await store.db.transaction().execute(async (trx) => {
      for (let index = done; index < Math.min(events, done + 500); index++) {
        await services.events.record(trx, {
          accountId: "default",
          type: "order.updated",
          object: {
            id: `ord_${index}`,
            status: "preparing",
            restaurant: "Tokyo Ramen Ichiban",
            total: { amount: 2480, currency: "JPY" },
          },
        });
      }
    });
  }
  return {
    store,
    services,
    secret: secret ?? "",
    async close() {
      await services.close();
      await store.close();
      await place.remove();
    },
  };
}

interface Measured {
  perSecond: number;
  /** CPU time of this process per delivery, in ms: independent of what else the machine is running. */
  cpuMs: number;
}

function measure(elapsedMs: number, cpu: NodeJS.CpuUsage, count: number): Measured {
  const used = process.cpuUsage(cpu);
  return {
    perSecond: count / (elapsedMs / 1000),
    cpuMs: (used.user + used.system) / 1000 / count,
  };
}

/**
 * Runs the worker until every delivery succeeded, then stops it and makes them due again for the next round. The
 * round ends when the last delivery completed (its completed_at), not when the 50 ms check noticed it.
 */
async function drain(target: Backlog, events: number): Promise<Measured> {
  const started = Date.now();
  const cpu = process.cpuUsage();
  target.services.worker.start();
  for (;;) {
    // Counting what is still pending reads the partial index of pending rows, which shrinks as the round goes: the
    // check itself costs the worker's process next to nothing.
    const { n } = await target.store.db
      .selectFrom("webhook_deliveries")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("status", "=", sql.lit("pending"))
      .executeTakeFirstOrThrow();
    if (Number(n) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const { succeeded, latest } = await target.store.db
    .selectFrom("webhook_deliveries")
    .select((eb) => [eb.fn.countAll<number>().as("succeeded"), eb.fn.max("completed_at").as("latest")])
    .where("status", "=", "succeeded")
    .executeTakeFirstOrThrow();
  if (Number(succeeded) !== events) throw new Error(`${events - Number(succeeded)} deliveries did not succeed`);
  const last = Number(latest);
  const result = measure(Math.max(last - started, 1), cpu, events);
  await target.services.worker.stop();
  await target.store.db.deleteFrom("webhook_attempts").execute();
  await target.store.db
    .updateTable("webhook_deliveries")
    .set({
      status: "pending",
      attempt_count: 0,
      next_attempt_at: Date.now(),
      completed_at: null,
      last_status_code: null,
    })
    .execute();
  return result;
}

/** The same bodies, signed, POSTed with a plain undici pool: no claim, no attempt log, no state. */
async function baseline(receiverUrl: string, bodies: string[], secret: string): Promise<Measured> {
  const url = new URL(receiverUrl);
  const pool = new Pool(url.origin, { connections: concurrency, pipelining: 1 });
  let next = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++] ?? "";
        const response = await pool.request({
          path: url.pathname,
          method: "POST",
          headers: {
            "content-type": "application/json",
            "gateway-signature": signatureHeader(body, [secret], Date.now()),
          },
          body,
        });
        await response.body.text();
        if (response.statusCode !== 200) throw new Error(`receiver answered ${response.statusCode}`);
      }
    }),
  );
  const result = measure(performance.now() - started, cpu, bodies.length);
  await pool.close();
  return result;
}

export async function run(events = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 5000)): Promise<void> {
  // The worker runs in this process: with the V8 settings of `gateway serve`.
  applyServingV8Settings();
  const receiver = startNode([path.join(import.meta.dirname, "receiver.ts")], {}, "pipe");
  try {
    const receiverUrl = (JSON.parse(await firstLine(receiver)) as { url: string }).url;
    const rows: Record<string, string | number>[] = [];
    for (const kind of benchStores()) {
      const target = await backlog(kind, receiverUrl, events);
      try {
        const bodies = (await target.store.db.selectFrom("events").select("body").execute()).map((row) => row.body);
        // Warm both up, then alternate baseline and worker rounds on the same bodies; report the median of each, since
        // other processes on the machine make any single round noisy.
        await baseline(receiverUrl, bodies.slice(0, 500), target.secret);
        await drain(target, events);
        const base: Measured[] = [];
        const worker: Measured[] = [];
        for (let round = 0; round < rounds; round++) {
          base.push(await baseline(receiverUrl, bodies, target.secret));
          worker.push(await drain(target, events));
        }
        const b = median(base);
        const w = median(worker);
        rows.push({
          store: kind,
          events,
          "baseline deliveries/s": round(b.perSecond, 0),
          "gateway deliveries/s": round(w.perSecond, 0),
          ratio: round(w.perSecond / b.perSecond),
          "baseline CPU ms/delivery": round(b.cpuMs, 3),
          "gateway CPU ms/delivery": round(w.cpuMs, 3),
        });
      } finally {
        await target.close();
      }
    }
    printTable(
      `Webhook delivery, ${events} events, ${concurrency} in flight (${endpointConcurrency} to the endpoint), median of ${rounds} rounds (target ratio ≥ 0.5 on SQLite)`,
      rows,
    );
  } finally {
    await receiver.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run(process.argv[2] ? Number(process.argv[2]) : undefined);
}
