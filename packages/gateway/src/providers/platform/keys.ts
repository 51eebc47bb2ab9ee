// Platform operations on the calling account's API keys.
import { Type } from "@sinclair/typebox";
import { apiKeyBounds, expiryRule } from "../../core/api-keys.ts";
import { readDateTime } from "../../core/date-time.ts";
import { type BrokenRule, GatewayError } from "../../core/errors.ts";
import { scopePattern, scopesWithin, unknownScopeTargets } from "../../core/scopes.ts";
import { Cursor, Limit, Nullable, PatternString, StrictObject } from "../schemas.ts";
import { defineOperation } from "../types.ts";

const ApiKey = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    account_id: Type.String(),
    key_prefix: Type.String({ description: "First characters of the key, to recognise it." }),
    scopes: Type.Array(Type.String()),
    rate_limit: Nullable(Type.Object({ per_minute: Type.Integer(), burst: Type.Integer() })),
    created_at: Type.String({ format: "date-time" }),
    expires_at: Nullable(Type.String({ format: "date-time" })),
    revoked_at: Nullable(Type.String({ format: "date-time" })),
    last_used_at: Nullable(
      Type.String({
        format: "date-time",
        description:
          "When the key was last accepted, to within a minute: each gateway node writes it at most once a minute per key.",
      }),
    ),
  },
  { additionalProperties: false },
);

const exampleKey = {
  id: "key_7Hq2LmVx9RtY4kPz",
  name: "checkout service",
  account_id: "default",
  key_prefix: "gwk_3fGh",
  scopes: ["catalog", "dining:create_reservation"],
  rate_limit: null,
  created_at: "2026-11-21T09:00:00.000Z",
  expires_at: null,
  revoked_at: null,
  last_used_at: null,
};

export const createApiKey = defineOperation({
  id: "create_api_key",
  summary: "Create an API key",
  description:
    "Creates a key for the calling account, with scopes that the calling key's own scopes cover. The key itself is in the answer once and never again.",
  auth: "none",
  input: StrictObject({
    name: Type.Optional(Type.String({ maxLength: apiKeyBounds.nameMaxLength })),
    scopes: Type.Array(
      PatternString(
        scopePattern.source,
        'is not a scope: use "*", "<provider_id>" or "<provider_id>:<operation_id>", in lower case',
        { description: '"*", "<provider_id>" or "<provider_id>:<operation_id>"' },
      ),
      { minItems: 1, maxItems: apiKeyBounds.scopesMaxItems },
    ),
    expires_at: Type.Optional(Type.String({ format: "date-time" })),
    rate_limit: Type.Optional(
      StrictObject({
        per_minute: Type.Integer({ minimum: 1, maximum: apiKeyBounds.rateLimitMax }),
        burst: Type.Integer({ minimum: 1, maximum: apiKeyBounds.rateLimitMax }),
      }),
    ),
  }),
  output: Type.Object(
    { key: Type.String({ pattern: "^gwk_[0-9A-Za-z]{32}$" }), api_key: ApiKey },
    { additionalProperties: false },
  ),
  example: {
    input: { name: "checkout service", scopes: ["catalog", "dining:create_reservation"] },
    output: { key: "gwk_3fGhJ8kLmN2pQrS5tUvW7xYz9aBcDeF1", api_key: exampleKey },
  },
  check({ scopes, expires_at }, ctx) {
    const rules: BrokenRule[] = [];
    const unknown = Array.isArray(scopes) ? unknownScopeTargets(scopes, ctx.core.apiKeys.scopeTargets) : [];
    if (unknown.length > 0) rules.push({ message: "Invalid scopes", problems: unknown });
    const expired = typeof expires_at === "string" && expiryRule(readDateTime(expires_at), ctx.clock.now());
    if (expired) rules.push(expired);
    return rules;
  },
  async handle(input, ctx) {
    if (!scopesWithin(input.scopes, ctx.principal.scopes)) {
      throw new GatewayError("scope_denied", "A key can only create keys whose scopes its own scopes cover");
    }
    const expiresAt = input.expires_at === undefined ? null : readDateTime(input.expires_at);
    // Nor can it create a key that outlives it, or one with more requests than its own limit allows.
    const creator = ctx.principal;
    if (creator.expiresAt !== null && (expiresAt === null || expiresAt > creator.expiresAt)) {
      throw new GatewayError(
        "scope_denied",
        `A key that expires can only create keys that expire no later than it (${new Date(creator.expiresAt).toISOString()})`,
      );
    }
    // A key with a limit of its own passes it on to a key created without one.
    const own = creator.rateLimit;
    const asked = input.rate_limit && { perMinute: input.rate_limit.per_minute, burst: input.rate_limit.burst };
    if (own && asked && (asked.perMinute > own.perMinute || asked.burst > own.burst)) {
      throw new GatewayError(
        "scope_denied",
        `A key with a rate limit of its own can only create keys limited within it (${own.perMinute} a minute, bursts of ${own.burst})`,
      );
    }
    const { key, view } = await ctx.core.apiKeys.create({
      accountId: ctx.accountId,
      name: input.name,
      scopes: input.scopes,
      expiresAt,
      rateLimit: asked ?? own,
    });
    return { data: { key, api_key: view } };
  },
});

export const listApiKeys = defineOperation({
  id: "list_api_keys",
  summary: "List API keys",
  description: "The calling account's keys, newest first, revoked ones included. Never the keys themselves.",
  auth: "none",
  readOnly: true,
  input: StrictObject({ cursor: Type.Optional(Cursor), limit: Type.Optional(Limit) }),
  output: Type.Object({ api_keys: Type.Array(ApiKey) }, { additionalProperties: false }),
  example: { input: {}, output: { api_keys: [exampleKey] } },
  async handle(input, ctx) {
    const page = await ctx.core.apiKeys.list(ctx.accountId, { cursor: input.cursor, limit: input.limit ?? 20 });
    return { data: { api_keys: page.apiKeys }, pagination: page.pagination };
  },
});

export const revokeApiKey = defineOperation({
  id: "revoke_api_key",
  summary: "Revoke an API key",
  description:
    "Revokes the key at once; every gateway node refuses it within its key cache's lifetime (2 s by default, GATEWAY_KEY_CACHE_TTL_MS). Revoking twice is harmless. A key can revoke only keys its own scopes cover.",
  auth: "none",
  input: StrictObject({ key_id: Type.String({ minLength: 1, maxLength: 64 }) }),
  output: Type.Object({ api_key: ApiKey }, { additionalProperties: false }),
  example: {
    input: { key_id: "key_7Hq2LmVx9RtY4kPz" },
    output: { api_key: { ...exampleKey, revoked_at: "2026-11-21T10:00:00.000Z" } },
  },
  async handle(input, ctx) {
    return { data: { api_key: await ctx.core.apiKeys.revoke(ctx.accountId, input.key_id, ctx.principal.scopes) } };
  },
});
