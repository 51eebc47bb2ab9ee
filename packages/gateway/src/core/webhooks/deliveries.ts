// Delivery rows of the outbox and what the event API shows of them: each delivery with its attempt log, and a
// redelivery on request (a new delivery of the same event, same id, with a fresh 24-hour window).
import type { Kysely } from "kysely";
import type { Database, WebhookAttemptsTable, WebhookDeliveriesTable } from "../../store/schema.ts";
import type { Clock } from "../clock.ts";
import { conflict } from "../errors.ts";
import type { Events } from "../events/events.ts";
import { timeOrderedId } from "../ids.ts";
import { deliveryWindowMs } from "./schedule.ts";

export function newDelivery(input: {
  eventId: string;
  accountId: string;
  endpointId: string;
  now: number;
}): WebhookDeliveriesTable {
  return {
    id: timeOrderedId("whd", input.now),
    event_id: input.eventId,
    account_id: input.accountId,
    endpoint_id: input.endpointId,
    status: "pending",
    attempt_count: 0,
    next_attempt_at: input.now,
    lease_until: null,
    created_at: input.now,
    deadline_at: input.now + deliveryWindowMs,
    completed_at: null,
    last_status_code: null,
    last_error: null,
  };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function attemptView(row: WebhookAttemptsTable) {
  return {
    attempt: row.attempt,
    attempted_at: new Date(row.attempted_at).toISOString(),
    url: row.url,
    status_code: row.status_code,
    latency_ms: row.latency_ms,
    error: row.error,
    response_body: row.response_body,
  };
}

export function deliveryView(row: WebhookDeliveriesTable, attempts: WebhookAttemptsTable[]) {
  return {
    id: row.id,
    event_id: row.event_id,
    status: row.status,
    attempt_count: attempts.length,
    created_at: new Date(row.created_at).toISOString(),
    next_attempt_at: row.status === "pending" ? iso(row.next_attempt_at) : null,
    deadline_at: new Date(row.deadline_at).toISOString(),
    completed_at: iso(row.completed_at),
    attempts: attempts.map(attemptView),
  };
}

export type DeliveryView = ReturnType<typeof deliveryView>;

export class Deliveries {
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly events: Events,
  ) {}

  onCreated(listener: () => void): void {
    this.listeners.add(listener);
  }

  /** Every delivery of the account's event, oldest first, each with its attempts in order. */
  async list(accountId: string, eventId: string): Promise<DeliveryView[]> {
    await this.events.get(accountId, eventId);
    // One statement, so one snapshot: a delivery's state and its attempts always agree.
    const rows = await this.db
      .selectFrom("webhook_deliveries as d")
      .leftJoin("webhook_attempts as a", "a.delivery_id", "d.id")
      .selectAll("d")
      .select([
        "a.attempt as a_attempt",
        "a.url as a_url",
        "a.attempted_at as a_attempted_at",
        "a.status_code as a_status_code",
        "a.latency_ms as a_latency_ms",
        "a.error as a_error",
        "a.response_body as a_response_body",
      ])
      .where("d.event_id", "=", eventId)
      .where("d.account_id", "=", accountId)
      .orderBy("d.created_at")
      .orderBy("d.id")
      .orderBy("a.attempted_at")
      .orderBy("a.attempt")
      .execute();
    const grouped = new Map<string, { row: WebhookDeliveriesTable; attempts: WebhookAttemptsTable[] }>();
    for (const row of rows) {
      const entry = grouped.get(row.id) ?? { row, attempts: [] };
      grouped.set(row.id, entry);
      if (row.a_attempt === null || row.a_attempt === undefined) continue;
      entry.attempts.push({
        delivery_id: row.id,
        event_id: row.event_id,
        attempt: row.a_attempt,
        url: row.a_url ?? "",
        attempted_at: Number(row.a_attempted_at),
        status_code: row.a_status_code ?? null,
        latency_ms: Number(row.a_latency_ms ?? 0),
        error: row.a_error ?? null,
        response_body: row.a_response_body ?? null,
      });
    }
    return [...grouped.values()].map(({ row, attempts }) => deliveryView(row, attempts));
  }

  /** Queues the event again for the account's current endpoint, whatever its subscription. */
  async redeliver(accountId: string, eventId: string): Promise<DeliveryView> {
    await this.events.get(accountId, eventId);
    const endpoint = await this.db
      .selectFrom("webhook_endpoints")
      .select("id")
      .where("account_id", "=", accountId)
      .executeTakeFirst();
    if (!endpoint) {
      throw conflict("This account has no webhook endpoint to deliver to; set one first", {
        reason: "no_webhook_endpoint",
      });
    }
    const row = newDelivery({ eventId, accountId, endpointId: endpoint.id, now: this.clock.now() });
    await this.db.insertInto("webhook_deliveries").values(row).execute();
    for (const listener of this.listeners) listener();
    return deliveryView(row, []);
  }
}
