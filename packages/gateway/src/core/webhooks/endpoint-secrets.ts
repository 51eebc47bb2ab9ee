// The signing secrets of webhook endpoints: `whsec_` values sealed at rest, issued when an endpoint is created or its
// secret rotated (shown once; a rotation may leave the previous one signing for a grace), and read by delivery, which
// signs with each one still in force.
import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import { BoundedMap } from "../../bounded-map.ts";
import { precompilePerCount } from "../../store/precompiled.ts";
import type { Database } from "../../store/schema.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import { newId } from "../ids.ts";
import { endpointCacheEntries, endpointCacheIdleMs } from "./cache-bounds.ts";

export interface SigningSecret {
  secret: string;
  /** When it stops signing: Infinity for the current secret, the grace's end for the previous one. */
  endsAt: number;
}

interface SecretRow {
  endpoint_id: string;
  secret_sealed: string;
  expires_at: number | null;
  created_at: number;
}

export class EndpointSecrets {
  /** The secrets of some endpoints, compiled once per count: delivery reads them whenever its kept copy is stale. */
  private readonly secretsOf: (endpointIds: readonly string[]) => Promise<{ rows: unknown[] }>;
  /**
   * Opened secrets by endpoint, then by sealed value: a sealed value never changes, so delivery does not decrypt on
   * every attempt. Each read of an endpoint's secrets keeps only those still stored, so that a secret rotated out (a
   * leaked one) is not kept in memory in the clear once delivery has read the endpoint's secrets again; a rotation or
   * deletion through this node drops the endpoint's at once (forget). Bounded as cache-bounds.ts says: those of the
   * endpoints least recently delivered to make room first, and those unused for a while leave (a deletion through
   * another node is not told to this node).
   */
  private readonly opened: BoundedMap<string, Map<string, string>>;
  /** Counts `forget`s: a read that overlaps one does not keep what it read (it may be what was just rotated out). */
  private forgotten = 0;

  constructor(
    db: Kysely<Database>,
    private readonly box: SecretBox,
  ) {
    this.opened = new BoundedMap(endpointCacheEntries, { maxIdleMs: endpointCacheIdleMs });
    this.secretsOf = precompilePerCount(db, (ids) =>
      db
        .selectFrom("webhook_secrets")
        .select(["endpoint_id", "secret_sealed", "expires_at", "created_at"])
        .where("endpoint_id", "in", ids),
    );
  }

  /** Stores a new current secret of the endpoint in the caller's transaction; answers it, to be shown once. */
  async issue(trx: Kysely<Database>, endpointId: string, now: number): Promise<string> {
    // `whsec_` + 32 base64url characters (24 random bytes).
    const secret = `whsec_${randomBytes(24).toString("base64url")}`;
    await trx
      .insertInto("webhook_secrets")
      .values({
        id: newId("whs", 16),
        endpoint_id: endpointId,
        secret_sealed: this.box.seal(secret),
        created_at: now,
        expires_at: null,
      })
      .execute();
    return secret;
  }

  /**
   * Issues the endpoint's next secret in the caller's transaction. With a grace, the secret current until now signs on
   * until the grace ends; any older one, still in an earlier rotation's grace, stops now: at most two secrets sign at
   * any time. Without a grace only the new one signs. Answers the new secret, to be shown once.
   */
  async rotate(trx: Kysely<Database>, endpointId: string, graceMs: number, now: number): Promise<string> {
    let stale = trx.deleteFrom("webhook_secrets").where("endpoint_id", "=", endpointId);
    if (graceMs > 0) stale = stale.where("expires_at", "is not", null);
    await stale.execute();
    if (graceMs > 0) {
      await trx
        .updateTable("webhook_secrets")
        .set({ expires_at: now + graceMs })
        .where("endpoint_id", "=", endpointId)
        .execute();
    }
    return this.issue(trx, endpointId, now);
  }

  /**
   * Every stored secret of some endpoints, opened, the current one (no end) first, then the one in a grace. Whether a
   * grace has ended is for the caller to judge at the time it signs.
   */
  async signingSecrets(endpointIds: readonly string[]): Promise<Map<string, SigningSecret[]>> {
    const result = new Map<string, SigningSecret[]>();
    if (endpointIds.length === 0) return result;
    const forgottenBefore = this.forgotten;
    const rows = (await this.secretsOf(endpointIds)).rows as SecretRow[];
    const endOf = (row: SecretRow) => (row.expires_at === null ? Infinity : Number(row.expires_at));
    rows.sort((a, b) => endOf(b) - endOf(a) || Number(b.created_at) - Number(a.created_at));
    const kept = new Map<string, Map<string, string>>();
    for (const row of rows) {
      const list = result.get(row.endpoint_id) ?? [];
      const opened = kept.get(row.endpoint_id) ?? new Map<string, string>();
      kept.set(row.endpoint_id, opened);
      const plain = this.opened.get(row.endpoint_id)?.get(row.secret_sealed) ?? this.box.open(row.secret_sealed);
      opened.set(row.secret_sealed, plain);
      list.push({ secret: plain, endsAt: endOf(row) });
      result.set(row.endpoint_id, list);
    }
    if (this.forgotten !== forgottenBefore) return result;
    for (const endpointId of endpointIds) {
      const opened = kept.get(endpointId);
      if (opened === undefined) {
        this.opened.delete(endpointId);
      } else {
        this.opened.set(endpointId, opened);
      }
    }
    return result;
  }

  /**
   * Drops what is kept opened of an endpoint changed on this node (its secret rotated, or the endpoint deleted, after
   * which delivery never reads its secrets again); the next read opens those still stored.
   */
  forget(endpointId: string): void {
    this.forgotten++;
    this.opened.delete(endpointId);
  }

  /** How many secrets are kept opened, over every endpoint (for tests). */
  get openedCount(): number {
    let count = 0;
    for (const opened of this.opened.values()) count += opened.size;
    return count;
  }
}
