// Operator endpoints: liveness, readiness (the store answers, and opens under this node's master keys) and Prometheus
// metrics.
import type { FastifyInstance } from "fastify";
import type { MasterKeyWatch } from "../core/crypto/master-key-watch.ts";
import { GatewayError } from "../core/errors.ts";
import { type Store, StoreFileReplaced } from "../store/database.ts";
import { sendError } from "./error-handler.ts";
import type { Metrics } from "./metrics.ts";

/** How long /readyz waits for the store: a store that stopped answering is not ready, and the probe must say so. */
export const readinessDeadlineMs = 2_000;

/** Whether this node still takes work: a node told to stop answers /readyz "shutting down" while it drains. */
export interface Readiness {
  stopping: boolean;
  /**
   * The store's master-key records, checked again with the store: a node whose keys they refuse (a rotation moved the
   * store to a key it lacks) is not ready.
   */
  masterKeys?: MasterKeyWatch;
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
  let check: Promise<GatewayError | undefined> | undefined;
  app.get("/readyz", async (_request, reply) => {
    // Expected, not a failure: answered without the error log line of a 500 (probes come every few seconds).
    if (options.readiness.stopping) return sendError(reply, shuttingDown());
    const { masterKeys } = options.readiness;
    check ??= options.store
      .ping()
      .then(() => masterKeys?.check())
      .finally(() => {
        check = undefined;
      });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), readinessDeadlineMs);
    });
    let refused: GatewayError | undefined;
    try {
      const checked = await Promise.race([check, deadline]);
      if (checked === "late") {
        throw new GatewayError("internal_error", `The store did not answer within ${readinessDeadlineMs} ms`);
      }
      refused = checked;
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
    // Said once in the log by the watch, not by every probe.
    if (refused) return sendError(reply, refused);
    return { status: "ready", store: options.store.kind };
  });
  app.get("/metrics", async (_request, reply) =>
    reply.type(options.metrics.registry.contentType).send(await options.metrics.registry.metrics()),
  );
}
