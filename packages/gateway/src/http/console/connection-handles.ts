// Connection ids belong in server code, never in a browser. Everything the console sends out has each
// `conn_…` id replaced by an opaque handle — deterministic AES-256-GCM (synthetic IV) of the account and the id under
// a key derived from the master key — and every handle the browser sends back is opened again on the server, for
// the signed-in account only.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync } from "node:crypto";
import { notFound } from "../../core/errors.ts";

const connectionIdPattern = /conn_[0-9A-Za-z]{22}/g;
const handlePattern = /^connref_[0-9A-Za-z_-]{40,200}$/;

export class ConnectionHandles {
  private readonly encryptionKey: Buffer;
  private readonly ivKey: Buffer;

  constructor(masterKey: Uint8Array) {
    const derive = (info: string) => Buffer.from(hkdfSync("sha256", masterKey, "", info, 32));
    this.encryptionKey = derive("console connection handles: encryption");
    this.ivKey = derive("console connection handles: iv");
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
    const decipher = createDecipheriv("aes-256-gcm", this.encryptionKey, bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    let plaintext: string;
    try {
      plaintext = Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString();
    } catch {
      return undefined;
    }
    const [owner, connectionId] = plaintext.split("\u0000");
    return owner === accountId && connectionId ? connectionId : undefined;
  }
}

function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === "string") return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, map)]));
  }
  return value;
}
