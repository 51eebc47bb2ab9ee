// `@provider-gateway/sdk/node`: the same verification and signing, synchronous, on node:crypto (Node only).
import { createHmac } from "node:crypto";
import type { WebhookEvent } from "../events.ts";
import { utf8 } from "./bytes.ts";
import { formatSignatureHeader, prepareSigning, type SignWebhookPayloadOptions } from "./sign.ts";
import {
  anySignatureMatches,
  noMatchingSignature,
  parseVerifiedEvent,
  prepareVerification,
  type VerifyWebhookOptions,
} from "./verify-core.ts";

/** Synchronous `verifyWebhook`: same rules, same errors. The HMAC key is the whole secret string as UTF-8. */
export function verifyWebhookSync(options: VerifyWebhookOptions): WebhookEvent {
  const prepared = prepareVerification(options);
  const expected = prepared.secrets.map((secret) => hmacSha256HexSync(secret, prepared.signedContent));
  if (!anySignatureMatches(expected, prepared.signatures)) throw noMatchingSignature();
  return parseVerifiedEvent(prepared.body);
}

/** Synchronous `signWebhookPayload`. */
export function signWebhookPayloadSync(options: SignWebhookPayloadOptions): string {
  const { timestamp, secrets, content } = prepareSigning(options);
  return formatSignatureHeader(
    timestamp,
    secrets.map((secret) => hmacSha256HexSync(secret, content)),
  );
}

function hmacSha256HexSync(secret: string, content: Uint8Array): string {
  return createHmac("sha256", utf8(secret)).update(content).digest("hex");
}
