// One delivery of an event with the table of its attempts.
import { Badge, HttpStatus, Time } from "../components/format.tsx";
import type { Delivery } from "../resources.ts";

export function DeliveryCard({ delivery, number }: { delivery: Delivery; number: number }) {
  return (
    <article class="card delivery" aria-label={`Delivery ${number}`}>
      <header class="delivery-head">
        <h3>Delivery {number}</h3>
        <Badge status={delivery.status} />
        <span class="muted small">
          {delivery.attempt_count} attempt{delivery.attempt_count === 1 ? "" : "s"}
          {delivery.status === "pending" && delivery.next_attempt_at && (
            <>
              {" "}
              · next <Time iso={delivery.next_attempt_at} />
            </>
          )}
          {delivery.status === "pending" && (
            <>
              {" "}
              · gives up <Time iso={delivery.deadline_at} />
            </>
          )}
        </span>
      </header>
      {delivery.attempts.length === 0 ? (
        <p class="muted">No attempt yet.</p>
      ) : (
        <table class="table attempts">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Time</th>
              <th scope="col">Status</th>
              <th scope="col">Latency</th>
              <th scope="col">Error</th>
              <th scope="col">Response</th>
            </tr>
          </thead>
          <tbody>
            {delivery.attempts.map((attempt) => (
              <tr key={attempt.attempt}>
                <td data-label="#">{attempt.attempt}</td>
                <td data-label="Time">
                  <Time iso={attempt.attempted_at} />
                </td>
                <td data-label="Status">
                  <HttpStatus code={attempt.status_code} />
                </td>
                <td data-label="Latency">{attempt.latency_ms} ms</td>
                <td data-label="Error">{attempt.error ?? <span class="muted">—</span>}</td>
                <td data-label="Response">
                  {attempt.response_body ? (
                    <code class="excerpt">{attempt.response_body}</code>
                  ) : (
                    <span class="muted">empty</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </article>
  );
}
