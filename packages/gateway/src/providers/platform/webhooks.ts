// Platform operations on the calling account's webhook endpoint: register, read, delete, rotate its secret, and
// send a test event. The secret is in the answer of set (on creation) and rotate only.
import { Type } from "@sinclair/typebox";
import { wildcardRule } from "../../core/webhooks/endpoints.ts";
import { Nullable, StrictObject } from "../schemas.ts";
import { defineOperation } from "../types.ts";
import { EventEnvelope, EventTypeName, exampleEndpoint, WebhookEndpoint, WebhookSecret } from "./event-schemas.ts";

const exampleSecret = "whsec_Yw3hN8dK2pQ7vR4tL9mX1cB6fG5jZ0sA";

export const setWebhookEndpoint = defineOperation({
  id: "set_webhook_endpoint",
  summary: "Register the webhook endpoint",
  description:
    "Registers the account's one endpoint, or changes its URL and event types. The URL must be https:// and must not " +
    'reach a private, loopback or link-local address. `event_types` lists the types to receive, or ["*"] for all. ' +
    "On creation the answer carries the signing secret, once; a change keeps the secret (`secret` is null).",
  auth: "none",
  input: StrictObject({
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    event_types: Type.Array(Type.Union([Type.Literal("*"), EventTypeName]), { minItems: 1, maxItems: 50 }),
  }),
  output: Type.Object({ endpoint: WebhookEndpoint, secret: Nullable(WebhookSecret) }, { additionalProperties: false }),
  example: {
    input: { url: exampleEndpoint.url, event_types: exampleEndpoint.event_types },
    output: { endpoint: exampleEndpoint, secret: exampleSecret },
  },
  check({ url, event_types }, ctx) {
    const wildcard = Array.isArray(event_types) ? wildcardRule(event_types) : undefined;
    // The URL's form is said here with the rest; its host (a private address, a name that does not resolve) is
    // looked up when the endpoint is set.
    const form = typeof url === "string" ? ctx.core.webhooks.endpoints.urlRule(url) : undefined;
    return [...(form ? [form] : []), ...(wildcard ? [wildcard] : [])];
  },
  async handle(input, ctx) {
    return { data: await ctx.core.webhooks.endpoints.set(ctx.accountId, input) };
  },
});

export const getWebhookEndpoint = defineOperation({
  id: "get_webhook_endpoint",
  summary: "Read the webhook endpoint",
  description: "The account's endpoint; never its secret. 404 when none is registered.",
  auth: "none",
  readOnly: true,
  input: StrictObject({}),
  output: Type.Object({ endpoint: WebhookEndpoint }, { additionalProperties: false }),
  example: { input: {}, output: { endpoint: exampleEndpoint } },
  async handle(_input, ctx) {
    return { data: { endpoint: await ctx.core.webhooks.endpoints.get(ctx.accountId) } };
  },
});

export const deleteWebhookEndpoint = defineOperation({
  id: "delete_webhook_endpoint",
  summary: "Delete the webhook endpoint",
  description: "Removes the endpoint and its secrets; deliveries still pending end as failed. Events stay in the log.",
  auth: "none",
  input: StrictObject({}),
  output: Type.Object({ id: Type.String(), deleted: Type.Literal(true) }, { additionalProperties: false }),
  example: { input: {}, output: { id: exampleEndpoint.id, deleted: true } },
  async handle(_input, ctx) {
    const { id } = await ctx.core.webhooks.endpoints.delete(ctx.accountId);
    return { data: { id, deleted: true as const } };
  },
});

export const rotateWebhookSecret = defineOperation({
  id: "rotate_webhook_secret",
  summary: "Rotate the webhook signing secret",
  description:
    "Issues a new secret, answered once. During `grace_seconds` (default 0, at most 7 days) the previous secret " +
    "keeps signing too: each delivery then carries one v2 signature per secret. At most two secrets sign: a secret " +
    "still in an earlier rotation's grace stops now.",
  auth: "none",
  input: StrictObject({ grace_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 604_800, default: 0 })) }),
  output: Type.Object({ endpoint: WebhookEndpoint, secret: WebhookSecret }, { additionalProperties: false }),
  example: {
    input: { grace_seconds: 86_400 },
    output: {
      endpoint: { ...exampleEndpoint, previous_secret_expires_at: "2026-11-22T10:00:00.000Z" },
      secret: exampleSecret,
    },
  },
  async handle(input, ctx) {
    return { data: await ctx.core.webhooks.endpoints.rotate(ctx.accountId, input.grace_seconds ?? 0) };
  },
});

export const sendTestEvent = defineOperation({
  id: "send_test_event",
  summary: "Send a test event",
  description:
    "Records a `test.event` and delivers it to the endpoint, whatever its event types. 404 without endpoint.",
  auth: "none",
  input: StrictObject({}),
  output: Type.Object({ event: EventEnvelope }, { additionalProperties: false }),
  example: {
    input: {},
    output: {
      event: {
        id: "evt_2Qx7Lp4Mn9Kd3Hs8Vb5Tc1",
        type: "test.event",
        created_at: "2026-11-21T09:10:00.000Z",
        data: { object: { message: "A test event from the Provider Gateway", endpoint_id: exampleEndpoint.id } },
      },
    },
  },
  async handle(_input, ctx) {
    const { events, webhooks } = ctx.core;
    const endpoint = await webhooks.endpoints.get(ctx.accountId);
    const object = { message: "A test event from the Provider Gateway", endpoint_id: endpoint.id };
    const { id } = await events.record(
      ctx.core.store.db,
      { accountId: ctx.accountId, type: "test.event", object },
      { deliverAlways: true },
    );
    return { data: { event: await events.get(ctx.accountId, id) } };
  },
});
