// The one webhook endpoint of an account: registration, its secrets (kept by endpoint-secrets.ts), rotation with a
// grace during which the previous secret keeps signing (at most two secrets sign at once), and deletion (pending
// deliveries to it end as failed).
import type { Kysely } from "kysely";
import type { Database, WebhookEndpointsTable } from "../../store/schema.ts";
import type { Clock } from "../clock.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import { type BrokenRule, brokenRuleError, invalidRequest, notFound } from "../errors.ts";
import { eventTypes, isEventType } from "../events/event-types.ts";
import { newId } from "../ids.ts";
import { EndpointSecrets, type SigningSecret } from "./endpoint-secrets.ts";
import { checkEndpointUrl, type UrlPolicy, urlFormRule } from "./endpoint-url.ts";

export const maxGraceSeconds = 7 * 24 * 3600;

export interface EndpointView {
  id: string;
  url: string;
  event_types: string[];
  created_at: string;
  updated_at: string;
  /** End of a rotation's grace: until then the previous secret signs alongside the current one. */
  previous_secret_expires_at: string | null;
}

const iso = (ms: number) => new Date(ms).toISOString();
const noEndpoint = () => notFound("This account has no webhook endpoint; set one with set_webhook_endpoint");

function checkEventTypes(types: readonly string[]): string[] {
  const problems = types.flatMap((type, index) =>
    type === "*" || isEventType(type)
      ? []
      : [{ path: `/event_types/${index}`, message: `"${type}" is not an event type: ${eventTypes.join(", ")}` }],
  );
  if (problems.length > 0) throw invalidRequest("Unknown event types", problems);
  const wildcard = wildcardRule(types);
  if (wildcard) throw brokenRuleError(wildcard);
  return [...new Set(types)];
}

/** "*" subscribes to every type, so a list with it and anything else is a mistake. */
export function wildcardRule(types: readonly unknown[]): BrokenRule | undefined {
  if (!types.includes("*") || types.length === 1) return undefined;
  return {
    message: '"*" subscribes to every type and stands alone',
    problems: [{ path: "/event_types", message: '"*" must be the only entry' }],
  };
}

export class WebhookEndpoints {
  private readonly listeners = new Set<(endpointId: string) => void>();
  private readonly secrets: EndpointSecrets;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    box: SecretBox,
    private readonly urlPolicy: UrlPolicy,
  ) {
    this.secrets = new EndpointSecrets(db, box);
  }

  /** Called after each change made on this node to an endpoint's URL, secrets or existence (delivery's cache). */
  onChanged(listener: (endpointId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(endpointId: string): void {
    this.secrets.forget(endpointId);
    for (const listener of this.listeners) listener(endpointId);
  }

  /** The rule a URL of a wrong form breaks (https only, no credentials, …): said with the input's other problems. */
  urlRule(url: string): BrokenRule | undefined {
    return urlFormRule(url, this.urlPolicy);
  }

  /** Creates the endpoint (answering its secret, once) or changes its URL and types (secret unchanged: null). */
  async set(accountId: string, input: { url: string; event_types: string[] }) {
    const url = await checkEndpointUrl(input.url, this.urlPolicy);
    const types = JSON.stringify(checkEventTypes(input.event_types));
    const now = this.clock.now();
    const result = await this.db.transaction().execute(async (trx) => {
      for (;;) {
        const existing = await this.find(trx, accountId);
        if (existing) {
          const updated = await trx
            .updateTable("webhook_endpoints")
            .set({ url, event_types: types, updated_at: now })
            .where("id", "=", existing.id)
            .executeTakeFirst();
          // Deleted by a call at the same time (on PostgreSQL this one waited for it): this call creates a new one.
          if (Number(updated.numUpdatedRows) === 0) continue;
          return {
            endpoint: await this.viewOf(trx, { ...existing, url, event_types: types, updated_at: now }),
            secret: null,
          };
        }
        const row = {
          id: newId("we", 16),
          account_id: accountId,
          url,
          event_types: types,
          created_at: now,
          updated_at: now,
        };
        // Calls at the same time on an account without an endpoint: one creates it (on PostgreSQL the others wait
        // here for it to commit), and the others change the endpoint it made, as a later call would.
        const inserted = await trx
          .insertInto("webhook_endpoints")
          .values(row)
          .onConflict((oc) => oc.column("account_id").doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) continue;
        const secret = await this.secrets.issue(trx, row.id, now);
        return { endpoint: await this.viewOf(trx, row), secret };
      }
    });
    this.changed(result.endpoint.id);
    return result;
  }

  async get(accountId: string): Promise<EndpointView> {
    const row = await this.find(this.db, accountId);
    if (!row) throw noEndpoint();
    return this.viewOf(this.db, row);
  }

  async delete(accountId: string): Promise<{ id: string }> {
    const now = this.clock.now();
    const result = await this.db.transaction().execute(async (trx) => {
      // The endpoint's row first: of deletions at the same time, only the one that removed it answers that it did (on
      // PostgreSQL the others wait for it, then find nothing: 404, as they would after it).
      const row = await trx
        .deleteFrom("webhook_endpoints")
        .where("account_id", "=", accountId)
        .returning("id")
        .executeTakeFirst();
      if (!row) throw noEndpoint();
      // A claimed delivery keeps its lease: an attempt of it already under way finishes, and a 2xx still counts
      // (AttemptLog takes a success for a failed delivery that holds a lease, which only a deletion leaves).
      await trx
        .updateTable("webhook_deliveries")
        .set({ status: "failed", completed_at: now, last_error: "the endpoint was deleted" })
        .where("endpoint_id", "=", row.id)
        .where("status", "=", "pending")
        .execute();
      // Its secrets went with its row (the foreign key cascades).
      return { id: row.id };
    });
    this.changed(result.id);
    return result;
  }

  /**
   * Issues a new secret; the one current until now signs on for `graceSeconds` (EndpointSecrets.rotate says which
   * secrets sign when).
   */
  async rotate(accountId: string, graceSeconds: number) {
    if (!Number.isInteger(graceSeconds) || graceSeconds < 0 || graceSeconds > maxGraceSeconds) {
      throw invalidRequest("grace_seconds must be an integer from 0 to 604800 (7 days)", [
        { path: "/grace_seconds", message: "must be from 0 to 604800" },
      ]);
    }
    const now = this.clock.now();
    const result = await this.db.transaction().execute(async (trx) => {
      // An UPDATE first (a new secret is a change of the endpoint): on PostgreSQL it locks the endpoint's row, so that
      // rotations at the same time run one after the other and each sees the secret the one before made current.
      const row = await trx
        .updateTable("webhook_endpoints")
        .set({ updated_at: now })
        .where("account_id", "=", accountId)
        .returningAll()
        .executeTakeFirst();
      if (!row) throw noEndpoint();
      const secret = await this.secrets.rotate(trx, row.id, graceSeconds * 1000, now);
      return { endpoint: await this.viewOf(trx, row), secret };
    });
    this.changed(result.endpoint.id);
    return result;
  }

  /** Every stored secret of some endpoints, opened (endpoint-secrets.ts): what delivery signs with. */
  signingSecrets(endpointIds: readonly string[]): Promise<Map<string, SigningSecret[]>> {
    return this.secrets.signingSecrets(endpointIds);
  }

  private find(db: Kysely<Database>, accountId: string) {
    return db.selectFrom("webhook_endpoints").selectAll().where("account_id", "=", accountId).executeTakeFirst();
  }

  private async viewOf(db: Kysely<Database>, row: WebhookEndpointsTable): Promise<EndpointView> {
    const previous = await db
      .selectFrom("webhook_secrets")
      .select((eb) => eb.fn.max("expires_at").as("until"))
      .where("endpoint_id", "=", row.id)
      .where("expires_at", ">", this.clock.now())
      .executeTakeFirst();
    const until = previous?.until ?? null;
    return {
      id: row.id,
      url: row.url,
      event_types: JSON.parse(row.event_types) as string[],
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
      previous_secret_expires_at: until === null ? null : iso(Number(until)),
    };
  }
}
