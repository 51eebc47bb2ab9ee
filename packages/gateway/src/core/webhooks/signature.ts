// The `Gateway-Signature` scheme: `t=<unix seconds>,v2=<hex HMAC-SHA256("<t>.<raw body>")>`, one v2
// per active secret, keyed with the UTF-8 bytes of the whole `whsec_…` string. The legacy `v1` (HMAC of the body
// alone) goes along only before 2026-10-01T00:00:00Z. Inbound provider hooks are verified with the same scheme.
import { createHmac, timingSafeEqual } from "node:crypto";
import { invalidRequest } from "../errors.ts";

export const legacyV1Until = Date.parse("2026-10-01T00:00:00Z");
export const signatureToleranceSeconds = 300;

const hmacHex = (secret: string, content: string | Buffer) =>
  createHmac("sha256", Buffer.from(secret, "utf8")).update(content).digest("hex");

/** HMAC of `<t>.<body>` fed in two parts: the body is not copied into a new buffer for every delivery. */
const timestampedHex = (secret: string, t: number, body: string | Buffer) =>
  createHmac("sha256", Buffer.from(secret, "utf8")).update(`${t}.`, "utf8").update(body).digest("hex");

/** Signs `body` at `nowMs` with every secret given (newest first). */
export function signatureHeader(body: string | Buffer, secrets: readonly string[], nowMs: number): string {
  const t = Math.floor(nowMs / 1000);
  const parts = [`t=${t}`, ...secrets.map((secret) => `v2=${timestampedHex(secret, t, body)}`)];
  if (nowMs < legacyV1Until) parts.push(...secrets.map((secret) => `v1=${hmacHex(secret, body)}`));
  return parts.join(",");
}

const refuse = (problem: string) =>
  invalidRequest(`The Gateway-Signature header does not verify: ${problem}`, [
    { path: "/headers/gateway-signature", message: problem },
  ]);

/**
 * A receiver's checks: t and v2 present, t within 300 s of the current second, a v2 that matches. Throws 400
 * `invalid_request` when the delivery must be refused.
 */
export function verifySignatureHeader(input: {
  header: string | undefined;
  rawBody: Buffer;
  secret: string;
  nowMs: number;
}): void {
  if (!input.header) throw refuse("it is missing");
  let t: string | undefined;
  const candidates: string[] = [];
  for (const part of input.header.split(",")) {
    const separator = part.indexOf("=");
    const key = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (key === "t") t = value;
    else if (key === "v2") candidates.push(value);
  }
  if (t === undefined || candidates.length === 0) throw refuse("t or v2 is missing");
  if (!/^[0-9]{1,15}$/.test(t)) throw refuse("t is not an integer");
  // In whole seconds, as t is, and as the SDK's verifyWebhook and the documented plain-Node check compare: a hook
  // signed in second t is accepted from second t - 300 (t ahead of the clock) through the last millisecond of second
  // t + 300, and refused from second t + 301 on.
  if (Math.abs(Math.floor(input.nowMs / 1000) - Number(t)) > signatureToleranceSeconds) {
    throw refuse(`t is more than ${signatureToleranceSeconds} s away from now`);
  }
  const expected = Buffer.from(hmacHex(input.secret, Buffer.concat([Buffer.from(`${t}.`), input.rawBody])));
  const matches = candidates.some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw refuse("no v2 signature matches");
}
