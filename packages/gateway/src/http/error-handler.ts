// The one place where errors become responses: every non-2xx answer is the seed's error envelope.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { GatewayError, invalidRequest } from "../core/errors.ts";

export interface ErrorEnvelope {
  error: {
    code: string;
    message: string;
    request_id: string;
    provider?: string;
    retryable: boolean;
    details?: unknown;
    fix?: string;
  };
}

export function errorEnvelope(error: GatewayError, requestId: string): ErrorEnvelope {
  return {
    error: {
      code: error.code,
      message: error.message,
      request_id: requestId,
      ...(error.provider !== undefined && { provider: error.provider }),
      retryable: error.retryable,
      ...(error.details !== undefined && { details: error.details }),
      ...(error.fix !== undefined && { fix: error.fix }),
    },
  };
}

export function sendError(reply: FastifyReply, error: GatewayError): FastifyReply {
  if (error.notExecuted) reply.request.notExecuted = true;
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  if (error.retryAfterSeconds !== undefined) reply.header("retry-after", String(error.retryAfterSeconds));
  return reply.code(error.status).type("application/json; charset=utf-8").send(errorEnvelope(error, reply.request.id));
}

/** Translates what Fastify itself raises (body parsing, limits) into the gateway's codes. */
function fromFramework(error: FastifyError): GatewayError | undefined {
  switch (error.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return invalidRequest("The request body is larger than the 1 MiB limit");
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return invalidRequest(error.message);
    default:
      if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
        return invalidRequest(error.message);
      }
      return undefined;
  }
}

export function registerErrorHandling(app: FastifyInstance, allowedMethods: (url: string) => string[]): void {
  app.setErrorHandler((error: FastifyError | GatewayError, request: FastifyRequest, reply: FastifyReply) => {
    const known = error instanceof GatewayError ? error : fromFramework(error);
    if (known) return sendError(reply, known);
    request.log.error({ err: error, request_id: request.id }, "unhandled error");
    return sendError(reply, new GatewayError("internal_error", "The request failed inside the gateway"));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0] ?? "/";
    const allowed = allowedMethods(path);
    if (allowed.length > 0) {
      reply.header("allow", allowed.join(", "));
      return sendError(
        reply,
        invalidRequest(`${request.method} is not allowed on ${path}; use ${allowed.join(" or ")}`),
      );
    }
    // Paths are exact: a trailing slash names no route, and the answer says which path was meant.
    const withoutSlash = path.replace(/\/+$/, "");
    const meant = withoutSlash !== path && allowedMethods(withoutSlash).includes(request.method);
    return sendError(
      reply,
      new GatewayError(
        "not_found",
        `No route ${request.method} ${path}${meant ? `; did you mean ${withoutSlash} (without the trailing slash)?` : ""}`,
      ),
    );
  });
}
