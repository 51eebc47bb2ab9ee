// Cursors the gateway hands out are sealed: the list's own cursor (a provider's page, the store's position, which can
// hold ids such as a connection's) encrypted with AES-256-GCM under a key derived from the master key, the list's
// scope (account, provider and operation) authenticated with it, so that every node of a deployment opens what
// another issued. A sealed cursor shows nothing of what is inside, which matters where it reaches a browser (the
// console's lists); one that was altered, made up, or issued for another list or account does not open and is refused
// before anything reads it, so a provider never sees a cursor it did not hand out. During a rotation of the master key,
// a cursor sealed under a key derived from a previous one (GATEWAY_MASTER_KEY_PREVIOUS) still opens: a client paging
// through a list when the key changed goes on; new cursors are sealed under the current key.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const ivBytes = 12;
const tagBytes = 16;
const sealedPattern = /^[A-Za-z0-9_-]+$/;

const cursorKey = (masterKey: Uint8Array) =>
  Buffer.from(hkdfSync("sha256", masterKey, "", "gateway cursor seal v2", 32));

export class CursorSeal {
  private readonly key: Buffer;
  private readonly previous: Buffer[];

  constructor(masterKey: Uint8Array, previousMasterKeys: readonly Uint8Array[] = []) {
    this.key = cursorKey(masterKey);
    this.previous = previousMasterKeys.map(cursorKey);
  }

  /** base64url of IV, ciphertext and tag; `scope` names the list (account, provider and operation). */
  seal(scope: string, cursor: string): string {
    const iv = randomBytes(ivBytes);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv).setAAD(Buffer.from(scope, "utf8"));
    const ciphertext = Buffer.concat([cipher.update(cursor, "utf8"), cipher.final()]);
    return Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString("base64url");
  }

  /** The cursor inside, or undefined when it was not sealed for this scope with this key, or was changed. */
  open(scope: string, sealed: string): string | undefined {
    if (!sealedPattern.test(sealed)) return undefined;
    const bytes = Buffer.from(sealed, "base64url");
    if (bytes.length <= ivBytes + tagBytes) return undefined;
    for (const key of [this.key, ...this.previous]) {
      const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, ivBytes))
        .setAAD(Buffer.from(scope, "utf8"))
        .setAuthTag(bytes.subarray(bytes.length - tagBytes));
      try {
        const inner = bytes.subarray(ivBytes, bytes.length - tagBytes);
        return Buffer.concat([decipher.update(inner), decipher.final()]).toString("utf8");
      } catch {
        // Not sealed under this key (or altered): the next key is tried.
      }
    }
    return undefined;
  }
}
