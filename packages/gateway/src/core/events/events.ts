// The event log and the outbox's entry point. `record` writes an event and, when the account's endpoint subscribes
// to its type, its delivery row, both in the caller's transaction: the state change, the event and the promise to
// deliver it commit or roll back together. Events are kept 30 days.
import type { Kysely } from "kysely";
import { purgeInBatches, rowsByTime, type Stopping } from "../../store/batched-purge.ts";
import type { Database, EventsTable } from "../../store/schema.ts";
import type { Clock } from "../clock.ts";
import { GatewayError, notFound } from "../errors.ts";
import { timeOrderedId } from "../ids.ts";
import { newestFirstPage } from "../pagination.ts";
import { printable } from "../printable.ts";
import { newDelivery } from "../webhooks/deliveries.ts";
import { isEventType, subscribes } from "./event-types.ts";

/** The database or a transaction of it: where `record` writes. */
export type StoreExecutor = Kysely<Database>;

export const eventRetentionMs = 30 * 24 * 3600 * 1000;

export interface RecordEventInput {
  accountId: string;
  type: string;
  /** The resource exactly as the API returns it. */
  object: Record<string, unknown>;
}

export interface EventEnvelope {
  id: string;
  type: string;
  created_at: string;
  data: { object: Record<string, unknown> };
}

export interface ListEventsInput {
  type?: string | undefined;
  cursor?: string | undefined;
  limit: number;
}

const envelopeOf = (row: Pick<EventsTable, "body">) => JSON.parse(row.body) as EventEnvelope;

export class Events {
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** Called after every record on this node (the delivery worker wakes up). */
  onRecorded(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Writes the event (and its delivery) with `trx`, a transaction of the caller's state change or the database.
   * `deliverAlways` delivers to the endpoint whatever its subscription (send_test_event).
   */
  async record(
    trx: StoreExecutor,
    input: RecordEventInput,
    options: { deliverAlways?: boolean } = {},
  ): Promise<{ id: string }> {
    if (!isEventType(input.type)) {
      throw new GatewayError("internal_error", `"${input.type}" is not an event type the gateway emits`);
    }
    const now = this.clock.now();
    const id = timeOrderedId("evt", now);
    const envelope: EventEnvelope = {
      id,
      type: input.type,
      created_at: new Date(now).toISOString(),
      data: { object: input.object },
    };
    await trx
      .insertInto("events")
      .values({ id, account_id: input.accountId, type: input.type, body: JSON.stringify(envelope), created_at: now })
      .execute();
    const endpoint = await trx
      .selectFrom("webhook_endpoints")
      .select(["id", "event_types"])
      .where("account_id", "=", input.accountId)
      .executeTakeFirst();
    if (endpoint && (options.deliverAlways || subscribes(endpoint.event_types, input.type))) {
      await trx
        .insertInto("webhook_deliveries")
        .values(newDelivery({ eventId: id, accountId: input.accountId, endpointId: endpoint.id, now }))
        .execute();
    }
    for (const listener of this.listeners) listener();
    return { id };
  }

  async list(accountId: string, input: ListEventsInput) {
    const since = this.clock.now() - eventRetentionMs;
    let query = this.db
      .selectFrom("events")
      .select(["id", "body", "created_at"])
      .where("account_id", "=", accountId)
      .where("created_at", ">=", since);
    if (input.type !== undefined) query = query.where("type", "=", input.type);
    const { items, pagination } = await newestFirstPage(query, input.cursor, input.limit);
    return { events: items.map(envelopeOf), pagination };
  }

  /** The account's event, or 404 (unknown, foreign and expired ids alike). */
  async get(accountId: string, eventId: string): Promise<EventEnvelope> {
    const row = await this.db
      .selectFrom("events")
      .select("body")
      .where("id", "=", eventId)
      .where("account_id", "=", accountId)
      .where("created_at", ">=", this.clock.now() - eventRetentionMs)
      .executeTakeFirst();
    if (!row) throw notFound(`No event ${printable(eventId)}`);
    return envelopeOf(row);
  }

  /**
   * Deletes events past retention with their deliveries and attempts, in batches (each batch of events with its
   * deliveries and attempts in one transaction), until none is left or `stopping`; answers how many went.
   */
  purgeExpired(stopping?: Stopping): Promise<number> {
    const db = this.db;
    return purgeInBatches(
      {
        timeAt: rowsByTime(db, "events", "created_at").timeAt,
        deleteUpTo: (upTo) =>
          db.transaction().execute(async (trx) => {
            const old = trx.selectFrom("events").select("id").where("created_at", "<=", upTo);
            const oldDeliveries = trx.selectFrom("webhook_deliveries").select("id").where("event_id", "in", old);
            await trx.deleteFrom("webhook_attempts").where("delivery_id", "in", oldDeliveries).execute();
            await trx.deleteFrom("webhook_deliveries").where("event_id", "in", old).execute();
            const deleted = await trx.deleteFrom("events").where("created_at", "<=", upTo).executeTakeFirst();
            return Number(deleted.numDeletedRows);
          }),
      },
      this.retentionCutoff(),
      stopping,
    );
  }

  /**
   * Deletes the inbound hooks (each provider hook processed, kept to skip its redelivery) as old as the events past
   * retention, in batches, until none is left or `stopping`; answers how many went.
   */
  purgeInboundHooks(stopping?: Stopping): Promise<number> {
    return purgeInBatches(rowsByTime(this.db, "inbound_hooks", "received_at"), this.retentionCutoff(), stopping);
  }

  /** Rows created before the retention began, that is at or before the millisecond before it, are past it. */
  private retentionCutoff(): number {
    return this.clock.now() - eventRetentionMs - 1;
  }
}
