// The console runs the platform operations themselves for the signed-in user's account — no second API for keys,
// connections, webhooks or events: POST /console/api/operations/platform/{operation_id} answers exactly what
// POST /v1/platform/{operation_id} would, connection ids replaced by handles both ways.
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Principal } from "../../core/api-keys.ts";
import { GatewayError, isGatewayError } from "../../core/errors.ts";
import type { ConsoleSession } from "../../core/users/sessions.ts";
import type { Registry } from "../../providers/registry.ts";
import { bodyAsObject } from "../body.ts";
import { catalogueAnswer } from "../catalogue.ts";
import { type ExecuteDeps, executeOperation } from "../execute.ts";
import type { ConnectionHandles } from "./connection-handles.ts";

export const consoleProvider = "platform";

export interface OperationRouteDeps extends ExecuteDeps {
  registry: Registry;
  handles: ConnectionHandles;
}

/** Console users may do everything their account may; the route limits them to the platform provider. */
export const userPrincipal = (session: ConsoleSession): Principal => ({
  kind: "delegation",
  accountId: session.accountId,
  keyId: session.userId,
  expiresAt: null,
  scopes: ["*"],
  rateLimit: null,
});

export function operationRoutes(app: FastifyInstance, deps: OperationRouteDeps) {
  const catalogueBody = catalogueAnswer(deps.registry, deps.core.clock);
  app.get("/console/api/catalogue", async (_request, reply) =>
    reply.type("application/json; charset=utf-8").send(catalogueBody()),
  );

  app.post<{ Params: { provider: string; operation: string } }>(
    "/console/api/operations/:provider/:operation",
    async (request) => {
      const { provider, operation } = request.params;
      const compiled = provider === consoleProvider ? deps.registry.operation(provider, operation) : undefined;
      if (!compiled) {
        throw new GatewayError(
          "not_found",
          `The console runs platform operations only; there is no "${provider}:${operation}"`,
        );
      }
      const session = request.consoleSession!;
      request.principal = userPrincipal(session);
      request.operationLabel = { provider, operation };
      const accountId = session.accountId;
      try {
        const input = deps.handles.reveal(accountId, bodyAsObject(request.body));
        return deps.handles.redact(accountId, await executeOperation(deps, request as FastifyRequest, compiled, input));
      } catch (error) {
        throw isGatewayError(error) ? redactError(deps.handles, accountId, error) : error;
      }
    },
  );
}

function redactError(handles: ConnectionHandles, accountId: string, error: GatewayError): GatewayError {
  return new GatewayError(error.code, handles.redact(accountId, error.message), {
    ...(error.provider !== undefined && { provider: error.provider }),
    ...(error.details !== undefined && { details: handles.redact(accountId, error.details) }),
    ...(error.fix !== undefined && { fix: error.fix }),
    retryable: error.retryable,
    ...(error.retryAfterSeconds !== undefined && { retryAfterSeconds: error.retryAfterSeconds }),
    headers: error.headers,
    cause: error,
  });
}
