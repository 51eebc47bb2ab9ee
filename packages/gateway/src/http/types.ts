// What the gateway adds to Fastify's request.
import type { Principal } from "../core/api-keys.ts";
import type { CompiledOperation } from "../providers/registry.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** The body exactly as received (idempotency fingerprints and signatures need the bytes). */
    rawBody: Buffer | undefined;
    /** Set by the authentication hook on /v1 routes. */
    principal: Principal | undefined;
    /**
     * True when the answer is an error raised before anything was executed upstream (see GatewayError.notExecuted);
     * false when it is an error the provider answered, which ran the operation whatever its status.
     */
    notExecuted: boolean | undefined;
    /** The operation a /v1 route runs, named before the body is validated (v1.ts admitOperation). */
    operation: CompiledOperation | undefined;
    /** Provider and operation of the call, for logs and metrics. */
    operationLabel: { provider: string; operation: string } | undefined;
    /** Whether the request was logged and counted (when answered, or when its client closed the connection first). */
    observed: boolean;
    /** performance.now() when the request arrived: the latency of one whose client closed the connection first. */
    startedAt: number;
  }
  interface FastifyContextConfig {
    /** The path holds a secret (a connect session token): logs show the route pattern instead. */
    logRoutePattern?: boolean;
  }
}
