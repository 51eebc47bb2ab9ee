// signWebhookPayload: produces a Gateway-Signature header value the way the gateway does, for receivers' own tests.
import { concatBytes, utf8 } from "./bytes.ts";
import { hmacSha256Hex } from "./verify.ts";

export interface SignWebhookPayloadOptions {
  /** The exact body that will be sent. */
  payload: string | Uint8Array;
  /** One secret, or several (one `v2` entry each, as during a secret rotation). Used whole as the HMAC key. */
  secret: string | readonly string[];
  /** Unix seconds (integer) or a Date; default now. */
  timestamp?: number | Date | undefined;
}

/** Returns `t=<t>,v2=<hex>[,v2=<hex>…]`. Never emits the legacy `v1`. */
export async function signWebhookPayload(options: SignWebhookPayloadOptions): Promise<string> {
  const { timestamp, secrets, content } = prepareSigning(options);
  const digests = await Promise.all(secrets.map((secret) => hmacSha256Hex(secret, content)));
  return formatSignatureHeader(timestamp, digests);
}

export function prepareSigning(options: SignWebhookPayloadOptions): {
  timestamp: number;
  secrets: string[];
  content: Uint8Array<ArrayBuffer>;
} {
  const timestamp =
    options.timestamp instanceof Date
      ? Math.floor(options.timestamp.getTime() / 1000)
      : (options.timestamp ?? Math.floor(Date.now() / 1000));
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new RangeError("timestamp must be a whole number of Unix seconds (or a Date).");
  }
  const secrets = typeof options.secret === "string" ? [options.secret] : [...options.secret];
  if (secrets.length === 0 || secrets.some((secret) => typeof secret !== "string" || secret === "")) {
    throw new TypeError("Signing needs at least one non-empty secret.");
  }
  const payload = typeof options.payload === "string" ? utf8(options.payload) : options.payload;
  return { timestamp, secrets, content: concatBytes(utf8(`${timestamp}.`), payload) };
}

export function formatSignatureHeader(timestamp: number, digests: readonly string[]): string {
  return [`t=${timestamp}`, ...digests.map((digest) => `v2=${digest}`)].join(",");
}
