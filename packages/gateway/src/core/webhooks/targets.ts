// Where and how an attempt goes: the endpoint's URL and signing secrets as they are when the attempt starts, read in
// one lookup for every attempt started together. Read then rather than at claim: a claimed delivery may wait for a
// slot while its endpoint is deleted, moved or its secret rotated, and must not go out to the old URL or secret.
import type { Kysely } from "kysely";
import { precompilePerCount } from "../../store/precompiled.ts";
import type { Database } from "../../store/schema.ts";
import type { WebhookEndpoints } from "./endpoints.ts";

export interface AttemptTarget {
  url: string;
  /** Newest first: the current secret, then the previous one during a rotation's grace. */
  secrets: string[];
}

export class AttemptTargets {
  private readonly urls: (ids: readonly string[]) => Promise<{ rows: unknown[] }>;

  constructor(
    db: Kysely<Database>,
    private readonly endpoints: WebhookEndpoints,
  ) {
    this.urls = precompilePerCount(db, (ids) =>
      db.selectFrom("webhook_endpoints").select(["id", "url"]).where("id", "in", ids),
    );
  }

  /** The endpoints that still exist, by id. */
  async lookup(endpointIds: readonly string[]): Promise<Map<string, AttemptTarget>> {
    const [urls, secrets] = await Promise.all([
      this.urls(endpointIds).then(({ rows }) => rows as { id: string; url: string }[]),
      this.endpoints.activeSecrets(endpointIds),
    ]);
    const targets = new Map<string, AttemptTarget>();
    for (const { id, url } of urls) {
      const signing = secrets.get(id);
      if (signing && signing.length > 0) targets.set(id, { url, secrets: signing });
    }
    return targets;
  }
}
