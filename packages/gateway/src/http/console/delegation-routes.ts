// POST /console/api/delegation-tokens: mints the `gwd_…` token that try-it-out sends as its bearer. Its scopes are
// a subset of the providers' operations (management stays in the console's own pages, which hide connection ids);
// the connection chosen in the UI arrives as a handle and is stored with the token, never given to the browser.
import type { FastifyInstance } from "fastify";
import { GatewayError, invalidRequest } from "../../core/errors.ts";
import { parseScopes } from "../../core/scopes.ts";
import type { DelegationTokens } from "../../core/users/delegation-tokens.ts";
import type { Registry } from "../../providers/registry.ts";
import { bodyAsObject } from "../body.ts";
import type { ConnectionHandles } from "./connection-handles.ts";
import { consoleProvider } from "./operations-routes.ts";

export interface DelegationRouteDeps {
  registry: Registry;
  delegation: DelegationTokens;
  handles: ConnectionHandles;
}

export function delegationRoutes(app: FastifyInstance, deps: DelegationRouteDeps) {
  const delegable = deps.registry.providers.map((p) => p.id).filter((id) => id !== consoleProvider);

  app.post("/console/api/delegation-tokens", async (request) => {
    const session = request.consoleSession!;
    const body = bodyAsObject(request.body);
    const requested = body.scopes === undefined ? ["*"] : body.scopes;
    if (!Array.isArray(requested) || !requested.every((s) => typeof s === "string")) {
      throw invalidRequest("scopes must be an array of scope strings", [{ path: "/scopes", message: "must be array" }]);
    }
    const parsed = parseScopes(requested as string[], deps.registry.providers);
    const scopes = parsed.includes("*") ? delegable : parsed;
    if (scopes.some((scope) => scope.split(":")[0] === consoleProvider)) {
      throw new GatewayError(
        "scope_denied",
        "Try-it-out tokens do not cover platform operations: manage keys, connections and webhooks in the console",
      );
    }
    if (scopes.length === 0) throw invalidRequest("There is no provider to try out on this gateway");
    const connection = body.connection;
    if (connection !== undefined && connection !== null && typeof connection !== "string") {
      throw invalidRequest("connection must be a connection handle", [
        { path: "/connection", message: "must be string" },
      ]);
    }
    const connectionId = connection ? deps.handles.open(session.accountId, connection) : undefined;
    const minted = await deps.delegation.mint({
      accountId: session.accountId,
      userId: session.userId,
      sessionId: session.id,
      scopes,
      connectionId,
    });
    return {
      data: {
        token: minted.token,
        scopes: minted.scopes,
        expires_at: new Date(minted.expiresAt).toISOString(),
        connection: connection ?? null,
      },
    };
  });
}
