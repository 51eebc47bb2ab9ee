// The public demo at /demo: anyone may run the `none`-mode operations of the providers (never the platform's) as
// the gateway's own `demo` account, an internal principal no key belongs to, with a strict per-visitor rate limit
// (the gateway's rate limiter, keyed by client address: shared by every node when the limiter is Redis).
// Nothing of any tenant is reachable: no connection, no management operation, no other account.
import type { FastifyInstance } from "fastify";
import { demoAccountId } from "../../core/accounts.ts";
import type { Principal } from "../../core/api-keys.ts";
import { GatewayError } from "../../core/errors.ts";
import type { RateLimitPolicy } from "../../core/rate-limit/gcra.ts";
import type { RateLimiter } from "../../core/rate-limit/limiter.ts";
import type { Registry } from "../../providers/registry.ts";
import { bodyAsObject } from "../body.ts";
import { type ExecuteDeps, executeOperation } from "../execute.ts";
import { applyDecision, policyHeader } from "../rate-limit/index.ts";
import { consoleProvider } from "./operations-routes.ts";

export interface DemoDeps extends ExecuteDeps {
  registry: Registry;
  limiter: RateLimiter;
  limit: RateLimitPolicy;
}

export function demoRoutes(deps: DemoDeps) {
  return async (app: FastifyInstance) => {
    const allowed = deps.registry
      .all()
      .filter(({ provider, operation }) => provider.id !== consoleProvider && operation.auth === "none");
    const principal: Principal = {
      kind: "api_key",
      accountId: demoAccountId,
      keyId: "demo",
      expiresAt: null,
      scopes: allowed.map(({ provider, operation }) => `${provider.id}:${operation.id}`),
      rateLimit: deps.limit,
    };
    let account: Promise<unknown> | undefined;

    const listing = JSON.stringify({
      data: {
        rate_limit: deps.limit,
        operations: allowed.map(({ provider, operation }) => ({
          provider_id: provider.id,
          provider_title: provider.title,
          operation_id: operation.id,
          summary: operation.summary,
          description: operation.description ?? null,
          input_schema: operation.input,
          example_input: operation.example.input,
        })),
      },
    });
    app.get("/demo/api/operations", async (_request, reply) =>
      reply.type("application/json; charset=utf-8").send(listing),
    );

    app.post<{ Params: { provider: string; operation: string } }>(
      "/demo/api/run/:provider/:operation",
      async (request, reply) => {
        const { provider, operation } = request.params;
        const compiled = allowed.find((c) => c.provider.id === provider && c.operation.id === operation);
        if (!compiled) {
          throw new GatewayError(
            "not_found",
            `The demo runs none-mode provider operations only; not "${provider}:${operation}"`,
          );
        }
        // Counted under the operation it named from here on, refused by the limit or not, as /v1 counts its requests.
        request.operationLabel = { provider, operation };
        // The same headers as on /v1, for the visitor's limit; a limiter that fails (Redis down) lets the run through.
        reply.header("ratelimit-policy", policyHeader(deps.limit));
        const decision = await deps.limiter.check(`demo-visitor:${request.ip}`, deps.limit);
        const wait = decision && applyDecision(reply, decision);
        if (wait !== undefined) {
          throw new GatewayError(
            "rate_limited",
            `The demo allows ${deps.limit.perMinute === 1 ? "1 request" : `${deps.limit.perMinute} requests`} a minute per visitor; retry in ${wait} s`,
            { retryAfterSeconds: wait },
          );
        }
        account ??= deps.core.accounts
          .ensure(demoAccountId, "Public demo", { forDemo: true })
          .catch((error: unknown) => {
            account = undefined;
            throw error;
          });
        await account;
        request.principal = principal;
        reply.header("cache-control", "no-store");
        return executeOperation(deps, request, compiled, bodyAsObject(request.body));
      },
    );
  };
}
