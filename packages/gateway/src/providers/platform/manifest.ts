// The platform provider: management of the calling account (keys, and later connections, webhooks and events),
// called like any other provider at POST /v1/platform/{operation_id}.
import { defineProvider } from "../types.ts";
import { createConnectSession, deleteConnection, getConnection, listConnections } from "./connections.ts";
import { getEvent, listEventDeliveries, listEvents, redeliverEvent } from "./events.ts";
import { createApiKey, listApiKeys, revokeApiKey } from "./keys.ts";
import {
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  rotateWebhookSecret,
  sendTestEvent,
  setWebhookEndpoint,
} from "./webhooks.ts";

export const platformProvider = defineProvider({
  id: "platform",
  title: "Platform",
  description: "Manage the calling account: API keys, connections, webhook endpoint and events.",
  operations: [
    createApiKey,
    listApiKeys,
    revokeApiKey,
    createConnectSession,
    listConnections,
    getConnection,
    deleteConnection,
    setWebhookEndpoint,
    getWebhookEndpoint,
    deleteWebhookEndpoint,
    rotateWebhookSecret,
    sendTestEvent,
    listEvents,
    getEvent,
    listEventDeliveries,
    redeliverEvent,
  ],
});
