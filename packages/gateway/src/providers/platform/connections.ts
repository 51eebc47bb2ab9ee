// Platform operations on connections: start a hosted connect session, list, read and delete the account's
// connections. No answer ever carries a provider token.
import { Type } from "@sinclair/typebox";
import { withoutConnections } from "../../core/connections/connect-sessions.ts";
import { type BrokenRule, GatewayError } from "../../core/errors.ts";
import type { CoreServices } from "../../core/services.ts";
import { Cursor, Limit, Nullable, PatternString, StrictObject } from "../schemas.ts";
import { defineOperation, type OperationContext } from "../types.ts";

const ProviderId = PatternString(
  "^[a-z][a-z0-9_]*$",
  "must be a provider id: a lower-case letter, then lower-case letters, digits or underscores",
  {
    maxLength: 64,
    description: "A provider with credentials operations, e.g. `shopping`.",
  },
);
const ExternalRef = Type.String({
  minLength: 1,
  maxLength: 255,
  description: "Your own reference for the end user (a user id of your app); maps to one live connection per provider.",
});
// No pattern on ids: a malformed id is as unknown as a foreign one, and gets the same 404.
const ConnectionId = Type.String({ minLength: 1, maxLength: 64, description: "`conn_…`" });
const Time = Type.String({ format: "date-time" });

export const Connection = Type.Object(
  {
    id: Type.String({ pattern: "^conn_[0-9A-Za-z]{22}$" }),
    provider_id: Type.String(),
    external_ref: Type.String(),
    status: Type.Union([Type.Literal("active"), Type.Literal("needs_reauth"), Type.Literal("deleted")], {
      description:
        "`needs_reauth`: the provider refused a refresh; create a new connect session for the same external_ref.",
    }),
    scopes: Type.Array(Type.String(), { description: "What the end user granted at the provider." }),
    replaces: Nullable(Type.String({ description: "The connection this one replaced (same external_ref)." })),
    replaced_by: Nullable(Type.String({ description: "The connection that replaced this one." })),
    created_at: Time,
    updated_at: Time,
    last_refreshed_at: Nullable(Time),
    deleted_at: Nullable(Time),
  },
  { additionalProperties: false },
);

export const exampleConnection = {
  id: "conn_5kQ2hV8xLm3Rt7YpWz1BcD",
  provider_id: "shopping",
  external_ref: "user_8842",
  status: "active" as const,
  scopes: ["cart", "watchlist"],
  replaces: null,
  replaced_by: null,
  created_at: "2026-11-21T09:00:00.000Z",
  updated_at: "2026-11-21T09:00:00.000Z",
  last_refreshed_at: null,
  deleted_at: null,
};

function services(core: CoreServices) {
  if (!core.connections || !core.connectSessions) {
    throw new GatewayError("internal_error", "Connections are not available on this gateway");
  }
  return { connections: core.connections, sessions: core.connectSessions };
}

export const createConnectSession = defineOperation({
  id: "create_connect_session",
  summary: "Start connecting an end user's provider account",
  description:
    "Answers a connect_url to send the end user to (valid 30 minutes, single use). They sign in at the provider and " +
    "allow access; the connection is then created (event connection.created) and replaces any live connection of the " +
    "same provider and external_ref. Find it with list_connections {external_ref}.",
  auth: "none",
  input: StrictObject({ provider_id: ProviderId, external_ref: ExternalRef }),
  output: Type.Object(
    {
      token: PatternString(
        "^cst_[0-9A-Za-z]{32}$",
        'must be a connect session token: "cst_" followed by 32 letters or digits',
        {
          description: "The session token inside connect_url.",
        },
      ),
      connect_url: Type.String({ format: "uri" }),
      expires_at: Time,
    },
    { additionalProperties: false },
  ),
  example: {
    input: { provider_id: "shopping", external_ref: "user_8842" },
    output: {
      token: "cst_Hq8VbN2xRt5LmY7pK3wZ9cD4fG6jS1aE",
      connect_url: "https://gateway.example.com/connect/cst_Hq8VbN2xRt5LmY7pK3wZ9cD4fG6jS1aE",
      expires_at: "2026-11-21T09:30:00.000Z",
    },
  },
  // Said with the input's other problems; create() refuses it too, for any other caller.
  check: providerWithConnections,
  async handle(input, ctx) {
    const session = await services(ctx.core).sessions.create({
      accountId: ctx.accountId,
      providerId: input.provider_id,
      externalRef: input.external_ref,
    });
    return { data: session };
  },
});

/** The broken rule of a provider_id that names no provider with connections, if the input has one. */
function providerWithConnections({ provider_id }: { provider_id?: unknown }, ctx: OperationContext): BrokenRule[] {
  const unsupported =
    typeof provider_id === "string" && ctx.core.connections
      ? withoutConnections(ctx.core.connections, provider_id)
      : undefined;
  return unsupported ? [unsupported] : [];
}

export const listConnections = defineOperation({
  id: "list_connections",
  summary: "List connections",
  description:
    "The account's live connections (active or needs_reauth), newest first, optionally filtered: by provider, by " +
    "external_ref exactly, or by the start of external_ref (case-sensitive).",
  auth: "none",
  readOnly: true,
  input: StrictObject({
    external_ref: Type.Optional(ExternalRef),
    external_ref_prefix: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: "Only connections whose external_ref starts so." }),
    ),
    provider_id: Type.Optional(ProviderId),
    cursor: Type.Optional(Cursor),
    limit: Type.Optional(Limit),
  }),
  output: Type.Object({ connections: Type.Array(Connection) }, { additionalProperties: false }),
  example: { input: { external_ref: "user_8842" }, output: { connections: [exampleConnection] } },
  // A provider_id that can have no connections is a mistake, said as create_connect_session says it, not an empty list.
  check: providerWithConnections,
  async handle(input, ctx) {
    const { connections, pagination } = await services(ctx.core).connections.list(ctx.accountId, {
      externalRef: input.external_ref,
      externalRefPrefix: input.external_ref_prefix,
      providerId: input.provider_id,
      cursor: input.cursor,
      limit: input.limit ?? 20,
    });
    return { data: { connections }, pagination };
  },
});

export const getConnection = defineOperation({
  id: "get_connection",
  summary: "Read a connection",
  description: "One live connection of the account. 404 for unknown, foreign and deleted ids alike.",
  auth: "none",
  readOnly: true,
  input: StrictObject({ connection_id: ConnectionId }),
  output: Type.Object({ connection: Connection }, { additionalProperties: false }),
  example: { input: { connection_id: exampleConnection.id }, output: { connection: exampleConnection } },
  async handle(input, ctx) {
    return { data: { connection: await services(ctx.core).connections.get(ctx.accountId, input.connection_id) } };
  },
});

export const deleteConnection = defineOperation({
  id: "delete_connection",
  summary: "Delete a connection",
  description:
    "Deletes the connection (event connection.deleted) and revokes its grant at the provider; `provider_revoked` " +
    "says whether the provider confirmed. Calls with its id answer 404 from then on.",
  auth: "none",
  input: StrictObject({ connection_id: ConnectionId }),
  output: Type.Object({ connection: Connection, provider_revoked: Type.Boolean() }, { additionalProperties: false }),
  example: {
    input: { connection_id: exampleConnection.id },
    output: {
      connection: {
        ...exampleConnection,
        status: "deleted" as const,
        updated_at: "2026-11-22T10:00:00.000Z",
        deleted_at: "2026-11-22T10:00:00.000Z",
      },
      provider_revoked: true,
    },
  },
  async handle(input, ctx) {
    const connections = services(ctx.core).connections;
    const { connection, revoked } = await connections.delete(ctx.accountId, input.connection_id, ctx.requestId);
    return { data: { connection, provider_revoked: revoked } };
  },
});
