// Parsing of the `Gateway-Signature` header: `t=<unix seconds>,v2=<hex>[,v2=<hex>…][,v1=<hex>]`.
import { WebhookVerificationError } from "./verification-error.ts";

export interface ParsedSignatureHeader {
  /** `t` exactly as sent (digits only): it is part of the signed content, so it is never re-formatted. */
  timestamp: string;
  /** Every `v2` value, in header order (one per secret the gateway is signing with). */
  signatures: string[];
}

const digitsOnly = /^[0-9]+$/;

/** Rule 1: `t` and at least one `v2` must be present and `t` must be an integer. `v1` and unknown keys are ignored. */
export function parseSignatureHeader(header: string): ParsedSignatureHeader {
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const rawPart of header.split(",")) {
    const part = rawPart.trim();
    if (part === "") continue;
    const separator = part.indexOf("=");
    if (separator <= 0) throw malformed(`"${part}" is not a key=value pair`);
    const key = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (key === "t") {
      if (timestamp !== undefined) throw malformed("t appears more than once");
      timestamp = value;
    } else if (key === "v2") {
      if (value === "") throw malformed("a v2 entry is empty");
      signatures.push(value);
    }
    // v1 is the legacy digest over the body alone (no timestamp, so replayable): it must never be trusted.
  }
  if (timestamp === undefined) throw malformed("t is missing");
  if (!digitsOnly.test(timestamp)) throw malformed("t is not an integer number of seconds");
  if (signatures.length === 0) throw malformed("no v2 signature (v1 alone is not accepted)");
  return { timestamp, signatures };
}

function malformed(problem: string): WebhookVerificationError {
  return new WebhookVerificationError("malformed_header", `Malformed Gateway-Signature header: ${problem}.`);
}
