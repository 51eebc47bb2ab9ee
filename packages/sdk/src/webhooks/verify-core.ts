// The steps of webhook verification that do not depend on the crypto API: options, header, tolerance, JSON.
// verify.ts (Web Crypto, async) and node.ts (node:crypto, sync) only add the HMAC computation.
import type { WebhookEvent } from "../events.ts";
import { concatBytes, timingSafeEqual, utf8 } from "./bytes.ts";
import { parseSignatureHeader } from "./signature-header.ts";
import { WebhookVerificationError } from "./verification-error.ts";

/** The body exactly as received: never a parsed object, never re-serialised. */
export type RawWebhookBody = string | Uint8Array | ArrayBuffer;

export interface VerifyWebhookOptions {
  rawBody: RawWebhookBody;
  /** The `Gateway-Signature` header value (Node's `req.headers["gateway-signature"]`, or `headers.get(…)`). */
  header: string | readonly string[] | null | undefined;
  /** The endpoint secret, `whsec_…`, used whole as the HMAC key. */
  secret?: string | undefined;
  /** Several secrets, e.g. old and new during a rotation; any match passes. Combined with `secret`. */
  secrets?: readonly string[] | undefined;
  /** Maximum |now − t|, in seconds, in both directions. Default 300. */
  toleranceSeconds?: number | undefined;
  /** The current time: a Date or milliseconds since the epoch (as `Date.now()`). Default: the clock. */
  now?: Date | number | undefined;
}

export const DEFAULT_TOLERANCE_SECONDS = 300;

export interface PreparedVerification {
  secrets: string[];
  signatures: string[];
  /** The signed content: UTF-8 of `<t>.` followed by the raw body's bytes. */
  signedContent: Uint8Array<ArrayBuffer>;
  body: Uint8Array | string;
}

/** Rules 1 and 2, after checking the arguments (misuse throws TypeError/RangeError, not a verification error). */
export function prepareVerification(options: VerifyWebhookOptions): PreparedVerification {
  // Plain JavaScript callers may pass (body, headers, secret) as in other SDKs: say what is expected instead.
  if (typeof options !== "object" || options === null || !("rawBody" in options)) {
    throw new TypeError("verifyWebhook takes one options object: { rawBody, header, secret }.");
  }
  const secrets = collectSecrets(options);
  const body = normaliseBody(options.rawBody);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!Number.isFinite(tolerance) || tolerance < 0) {
    throw new RangeError("toleranceSeconds must be a finite number of seconds, 0 or more.");
  }
  const nowMs = options.now === undefined ? Date.now() : new Date(options.now).getTime();
  if (!Number.isFinite(nowMs)) throw new RangeError("now must be a valid Date or milliseconds since the epoch.");

  const header = Array.isArray(options.header) ? options.header.join(",") : options.header;
  if (typeof header !== "string" || header.trim() === "") {
    throw new WebhookVerificationError("missing_header", "The Gateway-Signature header is missing or empty.");
  }
  const { timestamp, signatures } = parseSignatureHeader(header);

  // In whole seconds, as `t` is: the current time's second against the signing time's, so that a delivery signed in
  // second t is accepted through second t + tolerance, as the docs' plain-Node check does.
  const skewSeconds = Math.abs(Math.floor(nowMs / 1000) - Number(timestamp));
  if (skewSeconds > tolerance) {
    throw new WebhookVerificationError(
      "timestamp_out_of_tolerance",
      `The signature timestamp is ${skewSeconds} s away from now, over the ${tolerance} s tolerance ` +
        "(a replayed delivery, or a clock that is off).",
    );
  }
  const bodyBytes = typeof body === "string" ? utf8(body) : body;
  return { secrets, signatures, signedContent: concatBytes(utf8(`${timestamp}.`), bodyBytes), body };
}

/** Rule 3's comparison: any `v2` entry equal to any expected digest. */
export function anySignatureMatches(expectedDigests: readonly string[], signatures: readonly string[]): boolean {
  return expectedDigests.some((expected) => signatures.some((signature) => timingSafeEqual(expected, signature)));
}

/** Rule 4: the body is parsed only after a signature matched. */
export function parseVerifiedEvent(body: Uint8Array | string): WebhookEvent {
  let value: unknown;
  try {
    value = JSON.parse(typeof body === "string" ? body : new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch (cause) {
    throw new WebhookVerificationError("invalid_json", "The signed body is not valid JSON.", { cause });
  }
  if (!isEventEnvelope(value)) {
    throw new WebhookVerificationError("invalid_json", "The signed body is not an event envelope {id, type, data}.");
  }
  return value as WebhookEvent;
}

export function noMatchingSignature(): WebhookVerificationError {
  return new WebhookVerificationError(
    "no_matching_signature",
    "No v2 signature matches. Pass the raw body exactly as received (not parsed and re-serialised) and the " +
      "endpoint's current secret (the whole `whsec_…` string).",
  );
}

function collectSecrets(options: VerifyWebhookOptions): string[] {
  const secrets = [...(options.secret === undefined ? [] : [options.secret]), ...(options.secrets ?? [])];
  if (secrets.length === 0) throw new TypeError("verifyWebhook needs `secret` or `secrets`.");
  for (const secret of secrets) {
    if (typeof secret !== "string" || secret === "") throw new TypeError("Webhook secrets must be non-empty strings.");
  }
  return secrets;
}

function normaliseBody(rawBody: unknown): Uint8Array | string {
  if (typeof rawBody === "string") return rawBody;
  // isView and the tag rather than instanceof, so bodies from another realm (vm, test environments) pass too.
  if (ArrayBuffer.isView(rawBody)) return new Uint8Array(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  if (Object.prototype.toString.call(rawBody) === "[object ArrayBuffer]") return new Uint8Array(rawBody as ArrayBuffer);
  throw new TypeError(
    "rawBody must be the body exactly as received (string, Buffer/Uint8Array or ArrayBuffer), not a parsed object: " +
      "a re-serialised body cannot match the signature. Capture the raw bytes before any JSON body parser.",
  );
}

function isEventEnvelope(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const event = value as Record<string, unknown>;
  const data = event.data;
  return (
    typeof event.id === "string" &&
    typeof event.type === "string" &&
    typeof event.created_at === "string" &&
    typeof data === "object" &&
    data !== null &&
    "object" in data
  );
}
