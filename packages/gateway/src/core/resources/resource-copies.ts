// Storage of the gateway's copies of stateful provider resources (table provider_resources). Reads are scoped to an
// account, so another account's id is simply not found; writes are compare-and-set on the upstream revision, so that
// a hook and a call applying the same change concurrently change the copy (and record its events) once.
import type { Kysely } from "kysely";
import type { Database, ProviderResourcesTable } from "../../store/schema.ts";
import type { Clock } from "../clock.ts";

/** The database or a transaction of it. */
type Executor = Kysely<Database>;

export interface ResourceCopy {
  id: string;
  providerId: string;
  kind: string;
  upstreamId: string;
  /** Null for a copy made from a hook before the creating call recorded it. */
  accountId: string | null;
  connectionId: string | null;
  status: string;
  object: Record<string, unknown>;
  revision: number;
  /** While the copy has no owner: each state it was given, in order (the adopting call records their events). */
  unownedHistory: UnownedState[];
  createdAt: number;
  updatedAt: number;
}

/** A state an unowned copy was given, with its upstream revision. */
export interface UnownedState {
  revision: number;
  object: Record<string, unknown>;
}

/** States kept for an unowned copy: such a copy lives seconds, until its creating call records it. */
const unownedHistoryLimit = 100;

export interface ResourceRef {
  providerId: string;
  kind: string;
}

export interface NewResourceCopy extends ResourceRef {
  id: string;
  upstreamId: string;
  accountId: string | null;
  connectionId: string | null;
  status: string;
  object: Record<string, unknown>;
  revision: number;
}

export interface ResourceState {
  status: string;
  object: Record<string, unknown>;
  revision: number;
}

const fromRow = (row: ProviderResourcesTable): ResourceCopy => ({
  id: row.id,
  providerId: row.provider_id,
  kind: row.kind,
  upstreamId: row.upstream_id,
  accountId: row.account_id,
  connectionId: row.connection_id,
  status: row.status,
  object: JSON.parse(row.object) as Record<string, unknown>,
  revision: Number(row.upstream_revision),
  unownedHistory: row.unowned_history === null ? [] : (JSON.parse(row.unowned_history) as UnownedState[]),
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

export class ResourceCopies {
  constructor(
    readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** The account's copy with this id, or undefined (unknown, another account's, another provider's or kind). */
  async find(
    executor: Executor,
    ref: ResourceRef & { accountId: string; id: string },
  ): Promise<ResourceCopy | undefined> {
    const row = await executor
      .selectFrom("provider_resources")
      .selectAll()
      .where("id", "=", ref.id)
      .where("provider_id", "=", ref.providerId)
      .where("kind", "=", ref.kind)
      .where("account_id", "=", ref.accountId)
      .executeTakeFirst();
    return row && fromRow(row);
  }

  /** The copy of an upstream resource, whoever owns it (hooks name upstream ids only). */
  async findByUpstreamId(executor: Executor, ref: ResourceRef & { upstreamId: string }) {
    const row = await executor
      .selectFrom("provider_resources")
      .selectAll()
      .where("provider_id", "=", ref.providerId)
      .where("kind", "=", ref.kind)
      .where("upstream_id", "=", ref.upstreamId)
      .executeTakeFirst();
    return row && fromRow(row);
  }

  /** Inserts a copy; answers false when one of that upstream resource already exists (a concurrent writer won). */
  async insert(executor: Executor, copy: NewResourceCopy): Promise<boolean> {
    const now = this.clock.now();
    const result = await executor
      .insertInto("provider_resources")
      .values({
        id: copy.id,
        provider_id: copy.providerId,
        kind: copy.kind,
        upstream_id: copy.upstreamId,
        account_id: copy.accountId,
        connection_id: copy.connectionId,
        status: copy.status,
        object: JSON.stringify(copy.object),
        upstream_revision: copy.revision,
        unowned_history:
          copy.accountId === null ? JSON.stringify([{ revision: copy.revision, object: copy.object }]) : null,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.columns(["provider_id", "kind", "upstream_id"]).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  /** Deletes copies made from hooks that no call claimed since `before` (resources created outside the gateway). */
  async purgeOrphans(executor: Executor, ref: ResourceRef, before: number): Promise<void> {
    await executor
      .deleteFrom("provider_resources")
      .where("account_id", "is", null)
      .where("provider_id", "=", ref.providerId)
      .where("kind", "=", ref.kind)
      .where("created_at", "<", before)
      .execute();
  }

  /**
   * Writes a new state if the copy still has `expectedRevision`; answers whether it did. An unowned copy (`unowned`
   * given: its history so far) adds the state to its history; an owner given ends the history. Either write also needs
   * the copy to be unowned still: an adoption may keep the revision (the hooks had brought a newer state than the
   * call's answer), and a hook's write made from the copy read before it would otherwise land without its events.
   */
  async compareAndSet(
    executor: Executor,
    id: string,
    expectedRevision: number,
    next: ResourceState & { owner?: { accountId: string; connectionId: string | null }; unowned?: UnownedState[] },
  ): Promise<boolean> {
    const history = next.owner
      ? null
      : next.unowned &&
        JSON.stringify([...next.unowned, { revision: next.revision, object: next.object }].slice(-unownedHistoryLimit));
    const result = await executor
      .updateTable("provider_resources")
      .set({
        status: next.status,
        object: JSON.stringify(next.object),
        upstream_revision: next.revision,
        updated_at: this.clock.now(),
        ...(next.owner && { account_id: next.owner.accountId, connection_id: next.owner.connectionId }),
        ...(history !== undefined && { unowned_history: history }),
      })
      .where("id", "=", id)
      .where("upstream_revision", "=", expectedRevision)
      .$if(next.owner !== undefined || next.unowned !== undefined, (qb) => qb.where("account_id", "is", null))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
