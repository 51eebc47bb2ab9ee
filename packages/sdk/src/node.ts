// Entry point `@provider-gateway/sdk/node`: synchronous webhook verification and signing on node:crypto.
export { signWebhookPayloadSync, verifyWebhookSync } from "./webhooks/node.ts";
