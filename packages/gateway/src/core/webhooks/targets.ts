// Where and how an attempt goes: the endpoint's URL and signing secrets as they are when the attempt starts, not when
// its delivery was claimed (a claimed delivery may wait for a slot while its endpoint is deleted, moved or its secret
// rotated, and must not go out to the old URL or secret).
//
// Reading them for every attempt would cost two statements a delivery, so they are kept per endpoint: a change made
// on this node drops its entry at once, and an entry is read again when it is older than `maxAgeMs`, which bounds how
// long a change made through another node takes to reach this node's worker. A grace's end is judged at each lookup.
import type { Kysely } from "kysely";
import { BoundedMap } from "../../bounded-map.ts";
import { precompilePerCount } from "../../store/precompiled.ts";
import type { Database } from "../../store/schema.ts";
import { endpointCacheEntries, endpointCacheIdleMs } from "./cache-bounds.ts";
import type { SigningSecret } from "./endpoint-secrets.ts";
import type { WebhookEndpoints } from "./endpoints.ts";

export interface AttemptTarget {
  url: string;
  /** Newest first: the current secret, then the previous one during a rotation's grace. */
  secrets: string[];
}

/** How long a change made through another node may take to reach this node's attempts. */
export const targetMaxAgeMs = 1_000;

interface Kept {
  url: string;
  secrets: SigningSecret[];
  readAt: number;
}

export class AttemptTargets {
  private readonly urls: (ids: readonly string[]) => Promise<{ rows: unknown[] }>;
  /** Bounded as cache-bounds.ts says: the endpoints least recently attempted make room first; idle ones leave. */
  private readonly kept: BoundedMap<string, Kept>;
  /** Counts the changes seen: a read that started before one does not keep what it read. */
  private changes = 0;

  constructor(
    db: Kysely<Database>,
    private readonly endpoints: WebhookEndpoints,
    private readonly maxAgeMs = targetMaxAgeMs,
  ) {
    this.kept = new BoundedMap(endpointCacheEntries, { maxIdleMs: endpointCacheIdleMs });
    this.urls = precompilePerCount(db, (ids) =>
      db.selectFrom("webhook_endpoints").select(["id", "url"]).where("id", "in", ids),
    );
    endpoints.onChanged((id) => {
      this.changes++;
      this.kept.delete(id);
    });
  }

  /**
   * The targets of endpoints all kept and fresh, without reading the store; undefined when one of them must be read.
   * `now` is the gateway's clock, against which a grace's end is judged.
   */
  fresh(endpointIds: readonly string[], now: number): Map<string, AttemptTarget> | undefined {
    const targets = new Map<string, AttemptTarget>();
    const readAfter = performance.now() - this.maxAgeMs;
    for (const id of endpointIds) {
      const kept = this.kept.get(id);
      if (kept === undefined || kept.readAt < readAfter) return undefined;
      const target = targetOf(kept, now);
      if (target) targets.set(id, target);
    }
    return targets;
  }

  /** The targets of the endpoints that still exist and have a secret that signs, by id; reads the store. */
  async lookup(endpointIds: readonly string[], now: number): Promise<Map<string, AttemptTarget>> {
    const changesBefore = this.changes;
    const readAt = performance.now();
    const [urls, secrets] = await Promise.all([
      this.urls(endpointIds).then(({ rows }) => rows as { id: string; url: string }[]),
      this.endpoints.signingSecrets(endpointIds),
    ]);
    const keep = this.changes === changesBefore;
    // Gone (deleted through another node): nothing to keep.
    for (const id of endpointIds) this.kept.delete(id);
    const targets = new Map<string, AttemptTarget>();
    for (const { id, url } of urls) {
      const kept = { url, secrets: secrets.get(id) ?? [], readAt };
      if (keep) this.kept.set(id, kept);
      const target = targetOf(kept, now);
      if (target) targets.set(id, target);
    }
    return targets;
  }
}

function targetOf(kept: Kept, now: number): AttemptTarget | undefined {
  const secrets = kept.secrets.filter((entry) => entry.endsAt > now).map((entry) => entry.secret);
  return secrets.length > 0 ? { url: kept.url, secrets } : undefined;
}
