// The one error verifyWebhook throws when a delivery must be refused; `reason` says which rule failed.

export type WebhookVerificationFailureReason =
  | "missing_header"
  | "malformed_header"
  | "timestamp_out_of_tolerance"
  | "no_matching_signature"
  | "invalid_json";

const brand = Symbol.for("@provider-gateway/sdk.WebhookVerificationError");

/** Answer the delivery with 400 and do not process it; the gateway redelivers for 24 hours. */
export class WebhookVerificationError extends Error {
  override readonly name: string = "WebhookVerificationError";
  readonly reason: WebhookVerificationFailureReason;

  constructor(reason: WebhookVerificationFailureReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
    Object.defineProperty(this, brand, { value: true });
  }
}

/** True for a WebhookVerificationError, also one from another copy of the SDK (ESM and CJS both loaded). */
export function isWebhookVerificationError(value: unknown): value is WebhookVerificationError {
  return value instanceof WebhookVerificationError || (value instanceof Error && Object.hasOwn(value, brand));
}
