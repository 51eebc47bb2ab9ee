// Operator endpoints: liveness, readiness (the store answers) and Prometheus metrics.
import type { FastifyInstance } from "fastify";
import { GatewayError } from "../core/errors.ts";
import { type Store, StoreFileReplaced } from "../store/database.ts";
import { sendError } from "./error-handler.ts";
import type { Metrics } from "./metrics.ts";

/** How long /readyz waits for the store: a store that stopped answering is not ready, and the probe must say so. */
export const readinessDeadlineMs = 2_000;

/** Whether this node still takes work: a node told to stop answers /readyz "shutting down" while it drains. */
export interface Readiness {
  stopping: boolean;
}

/** What /readyz answers a stopping node: a load balancer's readiness probe takes it out before it stops accepting. */
export const shuttingDown = () =>
  new GatewayError("internal_error", "This node is shutting down: send new requests to another node");

export async function operatorRoutes(
  app: FastifyInstance,
  options: { store: Store; metrics: Metrics; readiness: Readiness },
) {
  app.get("/healthz", async () => ({ status: "ok" }));
  // One store check at a time: while the store does not answer, every probe waits on the same check instead of
  // taking another pooled connection that would hang too.
  let check: Promise<void> | undefined;
  app.get("/readyz", async (_request, reply) => {
    // Expected, not a failure: answered without the error log line of a 500 (probes come every few seconds).
    if (options.readiness.stopping) return sendError(reply, shuttingDown());
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
      // The answer names no path (anyone may ask /readyz); the log line has the cause, file included.
      const message =
        error instanceof StoreFileReplaced
          ? "The store's database file was deleted or replaced while this node ran"
          : "The store is not reachable";
      throw new GatewayError("internal_error", message, { cause: error });
    } finally {
      clearTimeout(timer);
    }
    return { status: "ready", store: options.store.kind };
  });
  app.get("/metrics", async (_request, reply) =>
    reply.type(options.metrics.registry.contentType).send(await options.metrics.registry.metrics()),
  );
}
