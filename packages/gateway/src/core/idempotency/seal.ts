// Stored responses are sealed under a key derived from the Idempotency-Key itself (HMAC-SHA256 keyed with it, over
// the account id: one PRF block, the expand step of HKDF at a quarter of hkdfSync's cost on every request) with
// AES-256-GCM: a first response can hold a secret shown once (a new API key, a webhook secret), and the store keeps
// only the key's hash, so reading the table without the clients' keys does not reveal those responses.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";

const ivBytes = 12;
const tagBytes = 16;

// IVs come from a pool filled 256 at a time: a CSPRNG call per request is a system call per request.
let ivPool = Buffer.alloc(0);
let ivOffset = 0;
function randomIv(): Buffer {
  if (ivOffset + ivBytes > ivPool.length) {
    ivPool = randomBytes(ivBytes * 256);
    ivOffset = 0;
  }
  ivOffset += ivBytes;
  return Buffer.from(ivPool.subarray(ivOffset - ivBytes, ivOffset));
}

const derive = (idempotencyKey: string, accountId: string) =>
  createHmac("sha256", idempotencyKey).update(`gateway idempotency response v1\0${accountId}`).digest();

/** `iv ‖ tag ‖ ciphertext`, base64. */
export function sealResponse(body: Buffer, idempotencyKey: string, accountId: string): string {
  const iv = randomIv();
  const cipher = createCipheriv("aes-256-gcm", derive(idempotencyKey, accountId), iv);
  const head = cipher.update(body);
  const tail = cipher.final();
  return Buffer.concat([iv, cipher.getAuthTag(), head, tail]).toString("base64");
}

/** Throws when the value was sealed under another key or altered. */
export function openResponse(sealed: string, idempotencyKey: string, accountId: string): Buffer {
  const bytes = Buffer.from(sealed, "base64");
  const decipher = createDecipheriv("aes-256-gcm", derive(idempotencyKey, accountId), bytes.subarray(0, ivBytes));
  decipher.setAuthTag(bytes.subarray(ivBytes, ivBytes + tagBytes));
  return Buffer.concat([decipher.update(bytes.subarray(ivBytes + tagBytes)), decipher.final()]);
}
