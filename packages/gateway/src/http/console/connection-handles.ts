// Connection ids belong in server code, never in a browser. Everything the console sends out has each
// `conn_…` id replaced by an opaque handle — deterministic AES-256-GCM (synthetic IV) of the account and the id under
// a key derived from the master key — and every handle the browser sends back is opened again on the server, for
// the signed-in account only. During a rotation of the master key, a handle derived from a previous key
// (GATEWAY_MASTER_KEY_PREVIOUS) still opens, so a console page loaded before the change keeps working; new handles
// come from the current key (one connection then has two handles until the previous key is removed).
import { createCipheriv, createDecipheriv, createHmac, hkdfSync } from "node:crypto";
import { notFound } from "../../core/errors.ts";

const connectionIdPattern = /conn_[0-9A-Za-z]{22}/g;
const handlePattern = /^connref_[0-9A-Za-z_-]{40,200}$/;

const encryptionKeyOf = (masterKey: Uint8Array) =>
  Buffer.from(hkdfSync("sha256", masterKey, "", "console connection handles: encryption", 32));

export class ConnectionHandles {
  private readonly encryptionKey: Buffer;
  private readonly ivKey: Buffer;
  /** The encryption keys of the previous master keys: handles they made still open. */
  private readonly previous: Buffer[];

  constructor(masterKey: Uint8Array, previousMasterKeys: readonly Uint8Array[] = []) {
    this.encryptionKey = encryptionKeyOf(masterKey);
    this.ivKey = Buffer.from(hkdfSync("sha256", masterKey, "", "console connection handles: iv", 32));
    this.previous = previousMasterKeys.map(encryptionKeyOf);
  }

  seal(accountId: string, connectionId: string): string {
    const plaintext = Buffer.from(`${accountId}\u0000${connectionId}`, "utf8");
    const iv = createHmac("sha256", this.ivKey).update(plaintext).digest().subarray(0, 12);
    const cipher = createCipheriv("aes-256-gcm", this.encryptionKey, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return `connref_${Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString("base64url")}`;
  }

  /** The connection id of a handle minted for this account; a foreign or altered handle is an unknown connection. */
  open(accountId: string, handle: string): string {
    const connectionId = this.opened(accountId, handle);
    if (connectionId === undefined) throw notFound("No such connection");
    return connectionId;
  }

  /** A deep copy of `value` with every connection id, wherever it appears in a string, replaced by its handle. */
  redact<T>(accountId: string, value: T): T {
    return mapStrings(value, (text) => text.replace(connectionIdPattern, (id) => this.seal(accountId, id))) as T;
  }

  /**
   * A deep copy of `value` with every string shaped like a handle replaced by its connection id; one that does not
   * open for this account is an unknown connection (404). Other strings stay as they are, including those that only
   * start like a handle (an external_ref such as `connref_42`).
   */
  reveal<T>(accountId: string, value: T): T {
    return mapStrings(value, (text) => (handlePattern.test(text) ? this.open(accountId, text) : text)) as T;
  }

  private opened(accountId: string, handle: string): string | undefined {
    if (!handlePattern.test(handle)) return undefined;
    const bytes = Buffer.from(handle.slice("connref_".length), "base64url");
    if (bytes.length < 12 + 16 + 1) return undefined;
    for (const key of [this.encryptionKey, ...this.previous]) {
      const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, 12));
      decipher.setAuthTag(bytes.subarray(bytes.length - 16));
      let plaintext: string;
      try {
        plaintext = Buffer.concat([
          decipher.update(bytes.subarray(12, bytes.length - 16)),
          decipher.final(),
        ]).toString();
      } catch {
        continue; // not this key's (or altered): the next key is tried
      }
      const [owner, connectionId] = plaintext.split("\u0000");
      return owner === accountId && connectionId ? connectionId : undefined;
    }
    return undefined;
  }
}

/**
 * A deep copy of a JSON value with every string mapped. Iterative: a body nested deeper than the call stack (a 1 MiB
 * body holds 200,000 levels) is copied like any other. Members keep their order; a member named `__proto__` stays a
 * member.
 */
function mapStrings(value: unknown, map: (text: string) => string): unknown {
  const root: Record<string, unknown> = {};
  const pending: [source: unknown, target: Record<string, unknown> | unknown[], key: string | number][] = [
    [value, root, "value"],
  ];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [source, target, key] = next;
    let copied: unknown = source;
    if (typeof source === "string") copied = map(source);
    else if (Array.isArray(source)) {
      const items: unknown[] = new Array(source.length);
      for (let i = source.length - 1; i >= 0; i--) pending.push([source[i], items, i]);
      copied = items;
    } else if (source !== null && typeof source === "object") {
      const members: Record<string, unknown> = {};
      const entries = Object.entries(source);
      // Each member in place first, so that the copy keeps the order whatever order the values are filled in.
      for (const [name] of entries) define(members, name, undefined);
      for (const [name, item] of entries) pending.push([item, members, name]);
      copied = members;
    }
    if (Array.isArray(target)) target[key as number] = copied;
    else define(target, key as string, copied);
  }
  return root.value;
}

function define(target: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}
