// The /v1 surface: authentication on every route, the uniform operation route, providers' resource aliases, and the
// catalogue.
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Principal } from "../core/api-keys.ts";
import { GatewayError } from "../core/errors.ts";
import { printable } from "../core/printable.ts";
import type { Registry } from "../providers/registry.ts";
import { registerAliasRoutes } from "./aliases.ts";
import { bodyAsObject } from "./body.ts";
import { catalogueAnswer } from "./catalogue.ts";
import {
  admitOperation,
  type ExecuteDeps,
  executeOperation,
  refuseQueryParameters,
  requestOperation,
} from "./execute.ts";

export interface V1Options extends ExecuteDeps {
  registry: Registry;
  authenticate(request: FastifyRequest): Principal | Promise<Principal>;
  /** Plugins that extend every /v1 request (rate limits, idempotency), registered before the routes. */
  extensions?: ((app: FastifyInstance) => void | Promise<void>)[];
}

const operationRoute = "/v1/:provider/:operation";

export async function v1Routes(app: FastifyInstance, options: V1Options): Promise<void> {
  app.decorateRequest("principal", undefined);
  app.decorateRequest("operation", undefined);
  // A callback hook: a cached key is authenticated without a promise. The uniform route's operation is named first,
  // so that a request refused before its route's own hooks (401, 429, an unreadable body) is logged and counted
  // under its operation, as every other answer of it is.
  app.addHook("onRequest", (request, _reply, done) => {
    nameOperation(request, options.registry);
    let principal: Principal | Promise<Principal>;
    try {
      principal = options.authenticate(request);
    } catch (error) {
      return done(error as Error);
    }
    if (!(principal instanceof Promise)) {
      request.principal = principal;
      return done();
    }
    principal.then((resolved) => {
      request.principal = resolved;
      done();
    }, done);
  });
  for (const extend of options.extensions ?? []) await extend(app);

  const catalogueBody = catalogueAnswer(options.registry, options.core.clock);
  app.get("/v1/operations", async (_request, reply) =>
    reply.type("application/json; charset=utf-8").send(catalogueBody()),
  );

  app.post<{ Params: { provider: string; operation: string } }>(operationRoute, {
    preValidation(request, _reply, done) {
      const compiled = request.operation;
      if (!compiled) {
        const { provider, operation } = request.params;
        const message = options.registry.provider(provider)
          ? `The ${provider} provider has no operation "${printable(operation)}"; GET /v1/operations lists them`
          : `There is no provider "${printable(provider)}"; GET /v1/operations lists them`;
        return done(new GatewayError("not_found", message));
      }
      done(admitOperation(request, compiled));
    },
    handler: async (request) => {
      refuseQueryParameters(request, "; send the input in the JSON body");
      return executeOperation(options, request, requestOperation(request), bodyAsObject(request.body));
    },
  });

  registerAliasRoutes(app, options);
}

/** The operation a request to the uniform route names, if the registry has it; aliases name theirs when admitted. */
function nameOperation(request: FastifyRequest, registry: Registry): void {
  const { provider, operation } = request.params as { provider?: string; operation?: string };
  if (provider === undefined || operation === undefined || request.routeOptions.url !== operationRoute) return;
  const compiled = registry.operation(provider, operation);
  if (!compiled) return;
  request.operation = compiled;
  request.operationLabel = { provider: compiled.provider.id, operation: compiled.operation.id };
}
