// Authentication of /v1 calls: `Authorization: Bearer <key>`, resolved through the key cache; then scopes.
import type { FastifyRequest } from "fastify";
import { type ApiKeys, type Principal, unauthorized } from "../core/api-keys.ts";
import { GatewayError } from "../core/errors.ts";
import { scopesAllow } from "../core/scopes.ts";
import { sentMoreThanOnce } from "./raw-headers.ts";

/** Resolves a bearer token to a principal. Each credential kind (API key, delegation token) is one resolver. */
export type TokenResolver = (token: string) => Promise<Principal> | undefined;

/** Answers the request's principal: synchronously when the key is cached, else as a promise; throws 401. */
export function createAuthenticator(apiKeys: ApiKeys, resolvers: TokenResolver[] = []) {
  return function authenticate(request: FastifyRequest): Principal | Promise<Principal> {
    const header = request.headers.authorization;
    if (!header) throw unauthorized("Missing API key: send `Authorization: Bearer <key>`");
    // Node keeps the first of several Authorization headers and drops the rest: which key was meant is unknown.
    if (sentMoreThanOnce(request.raw.rawHeaders, "authorization")) {
      throw unauthorized("The Authorization header was sent more than once: send one key");
    }
    const match = /^Bearer +(\S+) *$/i.exec(header);
    if (!match?.[1]) throw unauthorized("The Authorization header must use the Bearer scheme");
    const token = match[1];
    for (const resolve of resolvers) {
      const principal = resolve(token);
      if (principal) return principal;
    }
    return apiKeys.authenticate(token);
  };
}

export function requireScope(principal: Principal, providerId: string, operationId: string): void {
  if (!scopesAllow(principal.scopes, providerId, operationId)) {
    throw new GatewayError("scope_denied", `This key's scopes do not allow ${providerId}:${operationId}`, {
      fix: `Use a key with the scope "*", "${providerId}" or "${providerId}:${operationId}".`,
    });
  }
}
