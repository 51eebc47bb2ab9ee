// verifyWebhook: the five verification rules below, on Web Crypto so it runs in Node 20+, Deno, Bun, workers.
import type { WebhookEvent } from "../events.ts";
import { toHex, utf8 } from "./bytes.ts";
import {
  anySignatureMatches,
  noMatchingSignature,
  parseVerifiedEvent,
  prepareVerification,
  type VerifyWebhookOptions,
} from "./verify-core.ts";

/**
 * Verifies a delivery and returns its event. Asynchronous because Web Crypto is; for a synchronous check in Node use
 * `verifyWebhookSync` from `@provider-gateway/sdk/node`.
 *
 * 1. `t` and `v2` are parsed from the header; missing, or `t` not an integer → `malformed_header`.
 * 2. |now − t| over `toleranceSeconds` (300) in either direction → `timestamp_out_of_tolerance`.
 * 3. HMAC-SHA256 over `<t>.<raw body>`, keyed with the UTF-8 bytes of the whole secret string (`whsec_` prefix
 *    included, nothing decoded), lower-case hex, compared in constant time with every `v2`; `v1` is ignored.
 *    No match with any secret → `no_matching_signature`.
 * 4. Only then is the body parsed: not JSON, or not an event envelope → `invalid_json`.
 * 5. On any `WebhookVerificationError`, answer 400 and do not process the event.
 */
export async function verifyWebhook(options: VerifyWebhookOptions): Promise<WebhookEvent> {
  const prepared = prepareVerification(options);
  const expected = await Promise.all(prepared.secrets.map((secret) => hmacSha256Hex(secret, prepared.signedContent)));
  if (!anySignatureMatches(expected, prepared.signatures)) throw noMatchingSignature();
  return parseVerifiedEvent(prepared.body);
}

export async function hmacSha256Hex(secret: string, content: Uint8Array<ArrayBuffer>): Promise<string> {
  const subtle = globalThis.crypto?.subtle;
  if (subtle === undefined) {
    throw new Error("Web Crypto (globalThis.crypto.subtle) is not available in this runtime.");
  }
  const key = await subtle.importKey("raw", utf8(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return toHex(new Uint8Array(await subtle.sign("HMAC", key, content)));
}
