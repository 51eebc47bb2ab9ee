// Operator endpoints: liveness, readiness (the store answers) and Prometheus metrics.
import type { FastifyInstance } from "fastify";
import { GatewayError } from "../core/errors.ts";
import type { Store } from "../store/database.ts";
import type { Metrics } from "./metrics.ts";

export async function operatorRoutes(app: FastifyInstance, options: { store: Store; metrics: Metrics }) {
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async () => {
    try {
      await options.store.ping();
    } catch (error) {
      throw new GatewayError("internal_error", "The store is not reachable", { cause: error, retryable: true });
    }
    return { status: "ready", store: options.store.kind };
  });
  app.get("/metrics", async (_request, reply) =>
    reply.type(options.metrics.registry.contentType).send(await options.metrics.registry.metrics()),
  );
}
