// Resource aliases (providers/types.ts ResourceAlias) inside the /v1 plugin: each alias is one more route that runs
// its operation through executeOperation, so that authentication, scopes, rate limits, Idempotency-Key (POST),
// validation, the envelope and the errors are exactly those of the operation's uniform route.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { invalidRequest } from "../core/errors.ts";
import { unstorableText } from "../core/json-text.ts";
import { aliasParams } from "../providers/aliases.ts";
import type { Registry } from "../providers/registry.ts";
import type { ResourceAlias } from "../providers/types.ts";
import { bodyAsObject } from "./body.ts";
import { admitOperation, type ExecuteDeps, executeOperation, refuseQueryParameters } from "./execute.ts";

const isEmptyObject = (value: unknown) =>
  typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;

/** The operation's input: the path parameters, plus the body for a POST. */
function aliasInput(alias: ResourceAlias, request: FastifyRequest): Record<string, unknown> {
  const where = `${alias.method} ${request.url.split("?")[0]}`;
  refuseQueryParameters(request);
  const params = request.params as Record<string, string>;
  // A path's %00 (or a lone surrogate's escape) is the same text a body may not hold, refused the same way.
  const unstorable = unstorableText(params, "path");
  if (unstorable) throw unstorable;
  if (alias.method !== "POST") {
    // Fastify does not read a GET's body at all: its announced length is the only sign of one.
    const unreadBody =
      request.body === undefined &&
      (Number(request.headers["content-length"] ?? 0) > 0 || request.headers["transfer-encoding"] !== undefined);
    if (unreadBody || (request.body !== undefined && !isEmptyObject(request.body))) {
      throw invalidRequest(`${where} takes no body: its input is the path`, [{ path: "", message: "must be empty" }]);
    }
    return { ...params };
  }
  const body = bodyAsObject(request.body);
  const clashes = aliasParams(alias.path).filter((name) => name in body && body[name] !== params[name]);
  if (clashes.length > 0) {
    throw invalidRequest(
      `${where}: ${clashes.join(", ")} is given by the path`,
      clashes.map((name) => ({ path: `/${name}`, message: "must match the path or be left out" })),
    );
  }
  return { ...body, ...params };
}

export function registerAliasRoutes(app: FastifyInstance, options: ExecuteDeps & { registry: Registry }): void {
  for (const provider of options.registry.providers) {
    for (const alias of provider.aliases ?? []) {
      const compiled = options.registry.operation(provider.id, alias.operation);
      if (!compiled) continue; // the registry refuses such an alias at start
      app.route({
        method: alias.method,
        url: `/v1/${provider.id}${alias.path}`,
        preValidation(request, reply, done) {
          // `/reservations/` matches `/reservations/:id` with an empty id: that is a path with no resource, a 404.
          if (Object.values(request.params as Record<string, string>).includes("")) return reply.callNotFound();
          done(admitOperation(request, compiled));
        },
        handler: async (request) => executeOperation(options, request, compiled, aliasInput(alias, request)),
      });
    }
  }
}
