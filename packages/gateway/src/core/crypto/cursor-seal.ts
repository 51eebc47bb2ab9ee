// Cursors the gateway hands out are sealed: the list's own cursor (a provider's page, the store's position) followed
// by an HMAC that binds it to the account and the operation, under a key derived from the master key, so that every
// node of a deployment accepts what another issued. A cursor that was altered, made up, or issued for another list
// or account is refused before anything reads it; a provider never sees one it did not hand out.
import { createHmac, timingSafeEqual } from "node:crypto";

const macLength = 22; // base64url characters: 132 bits of HMAC-SHA256
const macPattern = new RegExp(`^[A-Za-z0-9_-]{${macLength}}$`);

export class CursorSeal {
  private readonly key: Buffer;

  constructor(masterKey: Uint8Array) {
    this.key = createHmac("sha256", masterKey).update("gateway cursor seal v1").digest();
  }

  /** `<cursor>.<mac>`; `scope` names the list (account, provider and operation). */
  seal(scope: string, cursor: string): string {
    return `${cursor}.${this.mac(scope, cursor)}`;
  }

  /** The cursor inside, or undefined when the seal does not match this scope. */
  open(scope: string, sealed: string): string | undefined {
    const dot = sealed.lastIndexOf(".");
    const given = sealed.slice(dot + 1);
    // Only base64url characters, so that the byte lengths timingSafeEqual compares are the character counts.
    if (dot <= 0 || !macPattern.test(given)) return undefined;
    const cursor = sealed.slice(0, dot);
    return timingSafeEqual(Buffer.from(given), Buffer.from(this.mac(scope, cursor))) ? cursor : undefined;
  }

  private mac(scope: string, cursor: string): string {
    return createHmac("sha256", this.key).update(`${scope}\n${cursor}`).digest("base64url").slice(0, macLength);
  }
}
