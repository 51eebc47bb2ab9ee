// Encryption at rest for secrets the gateway must read back (webhook signing secrets, provider OAuth tokens):
// AES-256-GCM under the master key, a fresh random 12-byte IV per seal, and a versioned text format
// `sb1.<iv>.<ciphertext>.<tag>` (base64url parts) so that the scheme or the key can change later. During a rotation
// of the master key the box also holds the previous keys: it seals under the current one only, and opens under
// whichever key sealed (GCM authenticates, so a wrong key fails cleanly and the next is tried); `resealed` moves a value
// to the current key (core/crypto/reseal.ts).
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const version = "sb1";
const ivBytes = 12;
const tagBytes = 16;

export class SecretBox {
  private readonly key: Buffer;
  private readonly previous: Buffer[];

  constructor(key: Uint8Array, previous: readonly Uint8Array[] = []) {
    if (key.length !== 32 || previous.some((old) => old.length !== 32))
      throw new Error("The secret box needs 32-byte keys");
    this.key = Buffer.from(key);
    this.previous = previous.map((old) => Buffer.from(old));
  }

  /** Whether the box holds previous keys: otherwise everything it opens is sealed under the current one. */
  get rotating(): boolean {
    return this.previous.length > 0;
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

  /** Throws when the value was sealed by none of the box's keys or was altered (GCM authenticates it). */
  open(sealed: string): string {
    const opened = this.opened(sealed);
    if (opened === undefined) throw doesNotOpen();
    return opened.plaintext;
  }

  /**
   * The value sealed anew under the current key when it opens under a previous one only; undefined when it is
   * sealed under the current key already. Throws when it opens under none.
   */
  resealed(sealed: string): string | undefined {
    const opened = this.opened(sealed);
    if (opened === undefined) throw doesNotOpen();
    return opened.current ? undefined : this.seal(opened.plaintext);
  }

  private opened(sealed: string): { plaintext: string; current: boolean } | undefined {
    const parts = sealed.split(".");
    if (parts.length !== 4 || parts[0] !== version) throw new Error("Not a sealed value of a known version");
    const [iv, ciphertext, tag] = parts.slice(1).map((part) => Buffer.from(part, "base64url")) as [
      Buffer,
      Buffer,
      Buffer,
    ];
    if (iv.length !== ivBytes || tag.length !== tagBytes) throw new Error("Malformed sealed value");
    for (const key of [this.key, ...this.previous]) {
      const decipher = createDecipheriv("aes-256-gcm", key, iv);
      decipher.setAuthTag(tag);
      try {
        const plaintext = Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString("utf8");
        return { plaintext, current: key === this.key };
      } catch {
        // Not this key's (or altered): the next key is tried.
      }
    }
    return undefined;
  }
}

/**
 * A sealed value that opens under none of the box's keys: altered, or sealed under a key this node does not hold (the
 * store moved to a key it lacks while it ran: core/crypto/master-key-watch.ts tells which).
 */
export class SealedValueDoesNotOpen extends Error {
  constructor() {
    super("The sealed value does not open with this master key (wrong key or altered data)");
    this.name = "SealedValueDoesNotOpen";
  }
}

const doesNotOpen = () => new SealedValueDoesNotOpen();
