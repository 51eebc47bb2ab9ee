// The event log (30 days): newest first, filtered by type, paginated; each row opens the event with its deliveries.
import { useState } from "preact/hooks";
import { api, type Envelope } from "../api.ts";
import { eventTypes, useCatalogue } from "../catalogue.ts";
import { EmptyState, ErrorNotice, Loading } from "../components/feedback.tsx";
import { Link, Time } from "../components/format.tsx";
import { useAction, useResource } from "../hooks.ts";
import type { GatewayEvent } from "../resources.ts";
import { replaceQuery } from "../router.ts";

type Page = Envelope<{ events: GatewayEvent[] }>;

export function EventsPage() {
  const types = eventTypes(useCatalogue());
  const [type, setType] = useState(new URLSearchParams(location.search).get("type") ?? "");
  const [more, setMore] = useState<GatewayEvent[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const list = (after?: string) =>
    api.operation<{ events: GatewayEvent[] }>("list_events", {
      ...(type && { type }),
      ...(after && { cursor: after }),
    });
  const first = useResource(async () => {
    const page: Page = await list();
    setMore([]);
    setCursor(page.pagination?.next_cursor ?? null);
    return page.data.events;
  }, [type]);
  const loadMore = useAction(async () => {
    const page: Page = await list(cursor ?? undefined);
    setMore([...more, ...page.data.events]);
    setCursor(page.pagination?.next_cursor ?? null);
  });
  const rows = [...(first.data ?? []), ...more];

  return (
    <>
      <p class="lead">
        Every event of the last 30 days, whether or not it was delivered. Open one to see its attempts.
      </p>
      <div class="toolbar">
        <div class="field">
          <label for="event-type">Type</label>
          <select
            id="event-type"
            value={type}
            onChange={(e) => {
              const value = e.currentTarget.value;
              setType(value);
              replaceQuery(new URLSearchParams(value ? { type: value } : {}));
            }}
          >
            <option value="">All types</option>
            {/* A type from the address that the catalogue does not name (mistyped, or not read yet) is shown as chosen,
                so that the list's error is explained and All types can be chosen again. */}
            {type && !types.includes(type) && <option value={type}>{type}</option>}
            {types.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </div>
        <button type="button" class="button-secondary" onClick={() => void first.reload()} disabled={first.loading}>
          Refresh
        </button>
      </div>
      <ErrorNotice error={first.error ?? loadMore.error} />
      {first.loading && !first.data && <Loading label="Loading events" />}
      {first.data && rows.length === 0 && (
        <EmptyState title={type ? `No ${type} events` : "No events yet"}>
          Events appear as reservations, orders, rides, payments and connections change. Send a test event from the{" "}
          <Link href="/console/webhooks">webhook endpoint</Link> page to see one now.
        </EmptyState>
      )}
      {rows.length > 0 && (
        <table class="table">
          <thead>
            <tr>
              <th scope="col">Type</th>
              <th scope="col">Event</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((event) => (
              <tr key={event.id}>
                <td data-label="Type">
                  <code class="chip">{event.type}</code>
                </td>
                <td data-label="Event">
                  <Link href={`/console/events/${encodeURIComponent(event.id)}`}>{event.id}</Link>
                </td>
                <td data-label="Created">
                  <Time iso={event.created_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {cursor && (
        <button type="button" class="button-secondary" onClick={() => void loadMore.run()} disabled={loadMore.pending}>
          {loadMore.pending ? "Loading…" : "Load more"}
        </button>
      )}
    </>
  );
}
