// Prometheus metrics of one gateway instance (its own registry, so that several can live in one process).
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "gateway_process_" });
  return {
    registry,
    requests: new Counter({
      name: "gateway_requests_total",
      help: "Requests answered, by provider, operation and HTTP status.",
      labelNames: ["provider", "operation", "status"] as const,
      registers: [registry],
    }),
    requestDuration: new Histogram({
      name: "gateway_request_duration_seconds",
      help: "Time to answer a request, by provider and operation.",
      labelNames: ["provider", "operation"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    upstreamDuration: new Histogram({
      name: "gateway_upstream_duration_seconds",
      help: "Time of calls to provider upstreams, by provider and outcome (HTTP status or error).",
      labelNames: ["provider", "status"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    idempotentRequests: new Counter({
      name: "gateway_idempotent_requests_total",
      help: "POSTs with an Idempotency-Key, by outcome: executed, replayed, key_reused, in_progress.",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    idempotencyWaiting: new Gauge({
      name: "gateway_idempotency_waiting",
      help: "Requests waiting for the first request under the same Idempotency-Key to finish.",
      registers: [registry],
    }),
    rateLimitFailOpen: new Counter({
      name: "gateway_rate_limit_fail_open_total",
      help: "Requests let through without a rate-limit decision because Redis refused the connection or did not answer in time.",
      registers: [registry],
    }),
    sendTimeouts: new Counter({
      name: "gateway_send_timeouts_total",
      help: "Connections destroyed because their client took none of an answer being written for the send timeout.",
      registers: [registry],
    }),
    webhookAttempts: new Counter({
      name: "gateway_webhook_attempts_total",
      help: "Webhook delivery attempts this node made, by outcome: succeeded (a 2xx answer) or failed.",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    logLinesDropped: new Counter({
      name: "gateway_log_lines_dropped_total",
      help: "Log lines dropped because standard output was not read (a full pipe past the log buffer) or was closed.",
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
