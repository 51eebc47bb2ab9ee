// One event: its payload exactly as delivered, every delivery with every attempt (time, status, latency, error,
// response excerpt), and a redeliver button. Refreshes itself while a delivery is pending.
import { api } from "../api.ts";
import { EmptyState, ErrorNotice, Loading } from "../components/feedback.tsx";
import { Json, Link, Time } from "../components/format.tsx";
import { shownError, useAction, useInterval, useResource } from "../hooks.ts";
import type { Delivery, GatewayEvent } from "../resources.ts";
import { DeliveryCard } from "./DeliveryCard.tsx";

export function EventDetailPage({ eventId }: { eventId: string }) {
  const event = useResource(
    async () => (await api.operation<{ event: GatewayEvent }>("get_event", { event_id: eventId })).data.event,
    [eventId],
  );
  const deliveries = useResource(
    async () =>
      (await api.operation<{ deliveries: Delivery[] }>("list_event_deliveries", { event_id: eventId })).data.deliveries,
    [eventId],
  );
  const redeliver = useAction(async () => {
    await api.operation("redeliver_event", { event_id: eventId });
    await deliveries.reload();
  });
  // Disabled while the user's own refresh runs, not the page's own every 2 seconds: a focused button that is disabled
  // loses focus, which would leave it for the page's heading at every tick.
  const refresh = useAction(() => deliveries.reload());
  const pending = deliveries.data?.some((d) => d.status === "pending") ?? false;
  useInterval(() => void deliveries.reload(), 2000, pending);

  if (event.error?.code === "not_found") {
    return (
      <EmptyState title="No such event">
        It may be older than 30 days, or belong to another account.{" "}
        <Link href="/console/events">Back to the events</Link>
      </EmptyState>
    );
  }
  return (
    <>
      <p>
        <Link href="/console/events">← All events</Link>
      </p>
      <ErrorNotice {...shownError(event, deliveries, redeliver)} />
      {!event.data && event.loading && <Loading label="Loading the event" />}
      {event.data && (
        <section class="card" aria-labelledby="event-title">
          <h2 id="event-title">
            <code>{event.data.type}</code>
          </h2>
          <dl class="facts">
            <dt>Event id</dt>
            <dd>
              <code>{event.data.id}</code>
            </dd>
            <dt>Created</dt>
            <dd>
              <Time iso={event.data.created_at} />
            </dd>
          </dl>
          <h3>Payload</h3>
          <Json value={event.data} label="Event payload" />
        </section>
      )}
      <section class="section" aria-labelledby="deliveries-title">
        <div class="section-head">
          <h2 id="deliveries-title">Deliveries</h2>
          <div class="actions">
            <button
              type="button"
              class="button-secondary"
              onClick={() => void refresh.run()}
              disabled={refresh.pending}
            >
              Refresh
            </button>
            <button
              type="button"
              class="button-primary"
              onClick={() => void redeliver.run()}
              disabled={redeliver.pending}
            >
              {redeliver.pending ? "Redelivering…" : "Redeliver"}
            </button>
          </div>
        </div>
        <p class="muted small">A redelivery carries the same Gateway-Event-Id: receivers dedupe on it.</p>
        {pending && (
          <p class="muted small" role="status">
            A delivery is pending; this page refreshes every 2 seconds.
          </p>
        )}
        {deliveries.data?.length === 0 && (
          <EmptyState title="Not delivered">
            No endpoint subscribed to this type when it happened. Register one, then redeliver.
          </EmptyState>
        )}
        {/* Oldest first, as list_event_deliveries answers them: the first delivery is number 1. */}
        {deliveries.data?.map((delivery, index) => (
          <DeliveryCard key={delivery.id} delivery={delivery} number={index + 1} />
        ))}
      </section>
    </>
  );
}
