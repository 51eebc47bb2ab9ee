// @provider-gateway/sdk: the typed client (GatewayClient), webhook verification, the gateway's error types and the
// event types. Runtime-neutral (fetch and Web Crypto only); the synchronous node:crypto variant of webhook
// verification is in `@provider-gateway/sdk/node`.

export type { CatalogueOperation, CatalogueProvider, OperationsCatalogue } from "./client/catalogue-types.ts";
export { DEFAULT_TIMEOUT_MS, GatewayClient } from "./client/client.ts";
export {
  BACKOFF_BASE_MS,
  BACKOFF_CAP_MS,
  DEFAULT_MAX_RETRIES,
  MAX_RETRY_AFTER_MS,
} from "./client/retry-policy.ts";
export type {
  CallOptions,
  FetchLike,
  GatewayClientOptions,
  OperationResponse,
  Pagination,
  ResponseMeta,
} from "./client/types.ts";
export { SDK_VERSION } from "./client/version.ts";

export {
  errorFromResponse,
  parseRetryAfter,
  type ResponseHeaders,
  type SentRequest,
} from "./error-from-response.ts";
export {
  ConflictError,
  GATEWAY_ERROR_CODES,
  GatewayConnectionError,
  GatewayError,
  type GatewayErrorCode,
  type GatewayErrorInit,
  type GatewayErrorSubclassInit,
  InternalError,
  InvalidRequestError,
  isGatewayError,
  type KnownGatewayErrorCode,
  NotFoundError,
  ProviderRejectedError,
  ProviderUnavailableError,
  RateLimitedError,
  ScopeDeniedError,
  UnauthorizedError,
} from "./errors.ts";
export {
  type Reservation,
  type ReservationStatus,
  WEBHOOK_EVENT_TYPES,
  type WebhookEvent,
  type WebhookEventEnvelope,
  type WebhookEventObjects,
  type WebhookEventOf,
  type WebhookEventType,
} from "./events.ts";
export * from "./operations.generated.ts";
export { type SignWebhookPayloadOptions, signWebhookPayload } from "./webhooks/sign.ts";
export {
  isWebhookVerificationError,
  WebhookVerificationError,
  type WebhookVerificationFailureReason,
} from "./webhooks/verification-error.ts";
export { verifyWebhook } from "./webhooks/verify.ts";
export { DEFAULT_TOLERANCE_SECONDS, type RawWebhookBody, type VerifyWebhookOptions } from "./webhooks/verify-core.ts";
