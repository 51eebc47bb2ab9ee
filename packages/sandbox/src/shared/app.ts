// Assembles one sandbox upstream: a Fastify app with fault injection, the list of requests it saw, a health probe and
// a single error path that speaks the upstream's own error format (unknown routes, bad parameters, thrown
// SandboxErrors, anything else).
import Fastify, { type FastifyError, type FastifyInstance } from "fastify";
import { type NativeErrorFormatter, SandboxError } from "./errors.ts";
import { faultInjectionPlugin } from "./faults.ts";
import type { SandboxHooks } from "./push-hook.ts";
import { seenRequestsPlugin } from "./seen-requests.ts";

export interface SandboxAppOptions {
  providerId: string;
  logger?: boolean;
  formatError: NativeErrorFormatter;
}

export type SandboxBuilder = (options: { logger?: boolean; hooks?: SandboxHooks }) => FastifyInstance;

function isFastifyError(error: unknown): error is FastifyError {
  return error instanceof Error && "statusCode" in error;
}

export function createSandboxApp(options: SandboxAppOptions): FastifyInstance {
  const app = Fastify({
    logger: options.logger ?? false,
    // A hung request (fault delay) must not hold close() open.
    forceCloseConnections: true,
    // Unknown properties in a JSON body are refused (400), not silently dropped.
    ajv: { customOptions: { removeAdditional: false } },
    routerOptions: { ignoreTrailingSlash: true },
  });
  const { formatError } = options;

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof SandboxError) {
      return reply.code(error.status).send(formatError(error));
    }
    if (isFastifyError(error) && error.statusCode !== undefined && error.statusCode < 500) {
      const status = error.statusCode;
      return reply.code(status).send(formatError({ status, kind: "bad_request", message: error.message }));
    }
    request.log.error({ err: error }, "sandbox route failed");
    return reply.code(500).send(formatError({ status: 500, kind: "internal", message: "Internal server error" }));
  });

  app.setNotFoundHandler((request, reply) => {
    const message = `No such endpoint: ${request.method} ${request.url.split("?")[0]}`;
    return reply.code(404).send(formatError({ status: 404, kind: "not_found", message }));
  });

  // Before the faults: a request answered by an injected fault was still received.
  app.register(seenRequestsPlugin);
  app.register(faultInjectionPlugin, { formatError });
  app.get("/_sandbox/health", async () => ({ provider: options.providerId, status: "ok" }));
  return app;
}
