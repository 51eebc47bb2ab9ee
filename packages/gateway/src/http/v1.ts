// The /v1 surface: authentication on every route, the uniform operation route, providers' resource aliases, and the
// catalogue.
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Principal } from "../core/api-keys.ts";
import { GatewayError } from "../core/errors.ts";
import type { Registry } from "../providers/registry.ts";
import { registerAliasRoutes } from "./aliases.ts";
import { bodyAsObject } from "./body.ts";
import { catalogue } from "./catalogue.ts";
import { admitOperation, type ExecuteDeps, executeOperation, requestOperation } from "./execute.ts";

export interface V1Options extends ExecuteDeps {
  registry: Registry;
  authenticate(request: FastifyRequest): Principal | Promise<Principal>;
  /** Plugins that extend every /v1 request (rate limits, idempotency), registered before the routes. */
  extensions?: ((app: FastifyInstance) => void | Promise<void>)[];
}

export async function v1Routes(app: FastifyInstance, options: V1Options): Promise<void> {
  app.decorateRequest("principal", undefined);
  // A callback hook: a cached key is authenticated without a promise.
  app.addHook("onRequest", (request, _reply, done) => {
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

  const catalogueBody = JSON.stringify({ data: catalogue(options.registry) });
  app.get("/v1/operations", async (_request, reply) =>
    reply.type("application/json; charset=utf-8").send(catalogueBody),
  );

  app.post<{ Params: { provider: string; operation: string } }>("/v1/:provider/:operation", {
    preValidation(request, _reply, done) {
      const { provider, operation } = request.params;
      const compiled = options.registry.operation(provider, operation);
      if (!compiled) {
        const message = options.registry.provider(provider)
          ? `The ${provider} provider has no operation "${operation}"; GET /v1/operations lists them`
          : `There is no provider "${provider}"; GET /v1/operations lists them`;
        return done(new GatewayError("not_found", message));
      }
      done(admitOperation(request, compiled));
    },
    handler: async (request) =>
      executeOperation(options, request, requestOperation(request), bodyAsObject(request.body)),
  });

  registerAliasRoutes(app, options);
}
