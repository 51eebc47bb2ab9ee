// Idempotency records in the shared store. A claim is atomic across nodes (insert-or-nothing on the primary key);
// a running claim holds a lease that its node renews while the request runs, so a claim left by a node that stopped
// is taken over once the lease lapses; a completed record holds the sealed first response until it expires.
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Kysely } from "kysely";
import { purgeInBatches, rowsByTime, type Stopping } from "../../store/batched-purge.ts";
import type { Database } from "../../store/schema.ts";
import type { Clock } from "../clock.ts";
import { RecordStatements } from "./record-statements.ts";

export interface RecordRef {
  accountId: string;
  keyHash: string;
}

/** A claim this node holds: what completing or releasing it needs. */
export interface HeldClaim {
  ref: RecordRef;
  token: string;
  fingerprint: string;
}

export interface StoredResponse {
  status: number;
  contentType: string | undefined;
  /** Sealed bytes (seal.ts). */
  sealedBody: string;
}

export type ClaimOutcome =
  /**
   * `since`: when the record's current use of the key began; a takeover continues that use and keeps it. `resumed`:
   * this claim takes over a run of that use that stopped (a node died mid-request), which may have acted already.
   */
  | { kind: "claimed"; token: string; since: number; resumed: boolean }
  | { kind: "completed"; response: StoredResponse }
  | { kind: "reused" }
  | { kind: "running" };

export interface IdempotencyTimings {
  /** How long a key is remembered (default 24 hours). */
  retentionMs: number;
  /** How long a running claim stays valid without renewal; its node renews it every third of that. */
  leaseMs: number;
}

export const defaultIdempotencyTimings: IdempotencyTimings = { retentionMs: 24 * 60 * 60 * 1000, leaseMs: 30_000 };

const pollStartMs = 10;
const pollMaxMs = 100;

export class IdempotencyRecords {
  private readonly statements: RecordStatements;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    readonly timings: IdempotencyTimings = defaultIdempotencyTimings,
  ) {
    this.statements = new RecordStatements(db);
  }

  /** One attempt: the claim, or what stands in its way. */
  async claim(ref: RecordRef, fingerprint: string): Promise<ClaimOutcome> {
    // Each further round follows a concurrent change by another request (a release, a takeover); a few suffice.
    for (let round = 0; round < 4; round++) {
      const now = this.clock.now();
      // randomUUID draws from a buffered CSPRNG: no system call per claim.
      const token = randomUUID();
      const inserted = await this.statements.insertClaim({
        account_id: ref.accountId,
        key_hash: ref.keyHash,
        fingerprint,
        state: "running",
        claim_token: token,
        lease_until: now + this.timings.leaseMs,
        status: null,
        content_type: null,
        body: null,
        created_at: now,
        expires_at: now + this.timings.retentionMs,
      });
      if (inserted) return { kind: "claimed", token, since: now, resumed: false };

      // Read together with the records in the way of the other claims refused in the same turn.
      const row = await this.statements.readRecord(ref);
      if (!row) continue;
      const expired = row.expires_at <= now;
      if (!expired && row.fingerprint !== fingerprint) return { kind: "reused" };
      if (!expired && row.state === "completed") {
        return {
          kind: "completed",
          response: {
            status: row.status ?? 500,
            contentType: row.content_type ?? undefined,
            sealedBody: row.body ?? "",
          },
        };
      }
      if (!expired && row.lease_until > now) return { kind: "running" };

      // Past its retention (not purged yet) the key is free again; past its lease a running claim was left by a
      // node that stopped. Either is taken with a compare-and-set on the old claim token.
      const taken = await this.whereRef(this.db.updateTable("idempotency_keys"), ref)
        .set({
          fingerprint,
          state: "running",
          claim_token: token,
          lease_until: now + this.timings.leaseMs,
          status: null,
          content_type: null,
          body: null,
          ...(expired && { created_at: now, expires_at: now + this.timings.retentionMs }),
        })
        .where("claim_token", "=", row.claim_token)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 1) {
        return { kind: "claimed", token, since: expired ? now : row.created_at, resumed: !expired };
      }
    }
    return { kind: "running" };
  }

  /**
   * Claims, or while another request runs under the key, polls until it completes (answering its response), is
   * released (claiming), or `waitMs` passes or `gone` says the caller left (answering `running`): a repeat whose client
   * closed its connection neither polls the store on for nothing nor runs the operation for nobody.
   */
  async claimOrWait(
    ref: RecordRef,
    fingerprint: string,
    waitMs: number,
    onWait?: () => void,
    gone?: () => boolean,
  ): Promise<ClaimOutcome> {
    const deadline = performance.now() + waitMs;
    let delay = pollStartMs;
    let outcome = await this.claim(ref, fingerprint);
    if (outcome.kind === "running") onWait?.();
    while (outcome.kind === "running") {
      const left = deadline - performance.now();
      if (left <= 0 || gone?.()) return outcome;
      await sleep(Math.min(delay, left));
      delay = Math.min(delay * 2, pollMaxMs);
      outcome = await this.claim(ref, fingerprint);
    }
    return outcome;
  }

  /** Stores the first response; false when the claim was lost (its lease lapsed and another request took it). */
  async complete(claim: HeldClaim, response: StoredResponse): Promise<boolean> {
    const now = this.clock.now();
    // The row is the one the claim holds; its other columns only matter if it vanished (then it is written whole).
    return this.statements.storeCompleted({
      account_id: claim.ref.accountId,
      key_hash: claim.ref.keyHash,
      fingerprint: claim.fingerprint,
      state: "completed",
      claim_token: claim.token,
      lease_until: now,
      status: response.status,
      content_type: response.contentType ?? null,
      body: response.sealedBody,
      created_at: now,
      expires_at: now + this.timings.retentionMs,
    });
  }

  /** Forgets a claim whose request ended without executing (validation, authorization): the key is free again. */
  async release(ref: RecordRef, token: string): Promise<void> {
    await this.whereClaim(this.db.deleteFrom("idempotency_keys"), ref, token).execute();
  }

  async renew(ref: RecordRef, token: string): Promise<void> {
    await this.whereClaim(this.db.updateTable("idempotency_keys"), ref, token)
      .set({ lease_until: this.clock.now() + this.timings.leaseMs })
      .execute();
  }

  /** Deletes records past their retention, a batch at a time until none is left or `stopping`; answers how many. */
  async purgeExpired(stopping?: Stopping): Promise<number> {
    return purgeInBatches(rowsByTime(this.db, "idempotency_keys", "expires_at"), this.clock.now(), stopping);
  }

  private whereRef<Q extends { where: WhereFn<Q> }>(query: Q, ref: RecordRef): Q {
    return query.where("account_id", "=", ref.accountId).where("key_hash", "=", ref.keyHash);
  }

  private whereClaim<Q extends { where: WhereFn<Q> }>(query: Q, ref: RecordRef, token: string): Q {
    return this.whereRef(query, ref).where("claim_token", "=", token).where("state", "=", "running");
  }
}

type WhereFn<Q> = (column: "account_id" | "key_hash" | "claim_token" | "state", op: "=", value: string) => Q;
