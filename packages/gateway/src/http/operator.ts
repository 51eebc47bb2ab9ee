// Operator endpoints: liveness, readiness (the store answers) and Prometheus metrics.
import type { FastifyInstance } from "fastify";
import { GatewayError } from "../core/errors.ts";
import type { Store } from "../store/database.ts";
import type { Metrics } from "./metrics.ts";

/** How long /readyz waits for the store: a store that stopped answering is not ready, and the probe must say so. */
export const readinessDeadlineMs = 2_000;

export async function operatorRoutes(app: FastifyInstance, options: { store: Store; metrics: Metrics }) {
  app.get("/healthz", async () => ({ status: "ok" }));
  // One store check at a time: while the store does not answer, every probe waits on the same check instead of
  // taking another pooled connection that would hang too.
  let check: Promise<void> | undefined;
  app.get("/readyz", async () => {
    check ??= options.store.ping().finally(() => {
      check = undefined;
    });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), readinessDeadlineMs);
    });
    try {
      if ((await Promise.race([check, deadline])) === "late") {
        throw new GatewayError("internal_error", `The store did not answer within ${readinessDeadlineMs} ms`);
      }
    } catch (error) {
      if (error instanceof GatewayError) throw error;
      throw new GatewayError("internal_error", "The store is not reachable", { cause: error });
    } finally {
      clearTimeout(timer);
    }
    return { status: "ready", store: options.store.kind };
  });
  app.get("/metrics", async (_request, reply) =>
    reply.type(options.metrics.registry.contentType).send(await options.metrics.registry.metrics()),
  );
}
