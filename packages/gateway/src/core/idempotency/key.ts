// The Idempotency-Key header and the request fingerprint it is bound to.
import { hash } from "node:crypto";
import { invalidRequest } from "../errors.ts";

const printableAscii = /^[\x20-\x7e]{1,255}$/;

const malformed = (reason: string) =>
  invalidRequest(
    `The Idempotency-Key header ${reason}`,
    [{ path: "/headers/idempotency-key", message: reason }],
    "Send 1 to 255 printable ASCII characters, for example a random UUID.",
  );

/**
 * The key from the header's value: 1–255 printable ASCII characters as sent, or a structured-field string
 * (RFC 9651: `"…"` with `\"` and `\\` escapes) whose content is 1–255 printable ASCII characters.
 * A value starting with a double quote is read as a structured-field string; anything else is taken literally.
 */
export function parseIdempotencyKey(header: string | string[]): string {
  if (Array.isArray(header) && header.length !== 1) throw malformed("must be sent once");
  const value = (Array.isArray(header) ? (header[0] as string) : header).trim();
  const key = value.startsWith('"') ? parseSfString(value) : value;
  if (key === undefined) throw malformed("is not a valid quoted string");
  if (key.length === 0) throw malformed("must not be empty");
  if (!printableAscii.test(key)) throw malformed("must be 1 to 255 printable ASCII characters");
  return key;
}

function parseSfString(value: string): string | undefined {
  let out = "";
  for (let i = 1; i < value.length; i++) {
    const char = value[i] as string;
    if (char === "\\") {
      const next = value[++i];
      if (next !== '"' && next !== "\\") return undefined;
      out += next;
    } else if (char === '"') {
      return i === value.length - 1 ? out : undefined;
    } else if (char < "\x20" || char > "\x7e") {
      return undefined;
    } else {
      out += char;
    }
  }
  return undefined;
}

export interface FingerprintInput {
  /** Who calls (core/api-keys.ts callerOf): another key of the account, even with the same request, is another one. */
  caller: string;
  method: string;
  /** The request target as sent: path and query string. */
  path: string;
  connectionId: string | undefined;
  rawBody: Uint8Array | undefined;
}

// crypto.hash: the one-shot digest, without a Hash object per call.
const sha256 = (data: string | Uint8Array) => hash("sha256", data, "hex");

/** SHA-256 over the caller, method, path, connection id and the SHA-256 of the raw body bytes. */
export function requestFingerprint(input: FingerprintInput): string {
  const bodyHash = sha256(input.rawBody ?? new Uint8Array());
  return sha256([input.caller, input.method.toUpperCase(), input.path, input.connectionId ?? "", bodyHash].join("\n"));
}

/** What the store keeps instead of the key: the key alone is the secret that opens the stored response. */
export const idempotencyKeyHash = (key: string) => sha256(`idempotency-key\n${key}`);

/**
 * The Idempotency-Key the gateway sends a provider with the `call`-th state-changing call (0, 1, …) of a request
 * holding the key's claim. It is the same when the request runs again under the same use of the key (a takeover keeps
 * `since`, when that use began) and another once the key's record expired and the key is used anew. One-way: the
 * provider never sees the tenant's key, and two accounts' keys never give the same one.
 */
export const upstreamIdempotencyKey = (ref: { accountId: string; keyHash: string }, since: number, call: number) =>
  sha256(`upstream-idempotency-key\n${ref.accountId}\n${ref.keyHash}\n${since}\n${call}`);
