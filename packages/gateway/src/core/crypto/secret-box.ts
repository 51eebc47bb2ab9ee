// Encryption at rest for secrets the gateway must read back (webhook signing secrets, provider OAuth tokens):
// AES-256-GCM under the master key, a fresh random 12-byte IV per seal, and a versioned text format
// `sb1.<iv>.<ciphertext>.<tag>` (base64url parts) so that the scheme or the key can change later.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const version = "sb1";
const ivBytes = 12;
const tagBytes = 16;

export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Uint8Array) {
    if (key.length !== 32) throw new Error("The secret box needs a 32-byte key");
    this.key = Buffer.from(key);
  }

  seal(plaintext: string): string {
    const iv = randomBytes(ivBytes);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [version, iv, ciphertext, tag]
      .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
      .join(".");
  }

  /** Throws when the value was not sealed by this key or was altered (GCM authenticates it). */
  open(sealed: string): string {
    const parts = sealed.split(".");
    if (parts.length !== 4 || parts[0] !== version) throw new Error("Not a sealed value of a known version");
    const [iv, ciphertext, tag] = parts.slice(1).map((part) => Buffer.from(part, "base64url")) as [
      Buffer,
      Buffer,
      Buffer,
    ];
    if (iv.length !== ivBytes || tag.length !== tagBytes) throw new Error("Malformed sealed value");
    const decipher = createDecipheriv("aes-256-gcm", this.key, iv);
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString("utf8");
    } catch {
      throw new Error("The sealed value does not open with this master key (wrong key or altered data)");
    }
  }
}
