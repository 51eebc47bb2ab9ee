// Usage of the account's API calls, from what the gateway records per minute: requests and errors over the last hour
// or day, errors by code, and p50/p95 latency per operation. Refreshes every 15 seconds.
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { Bars, RequestsChart } from "../components/charts.tsx";
import { EmptyState, ErrorNotice, Loading } from "../components/feedback.tsx";
import { useInterval, useResource } from "../hooks.ts";

const ms = (value: number | null) =>
  value === null ? "—" : value < 10 ? `${value.toFixed(1)} ms` : `${Math.round(value)} ms`;

export function UsagePage() {
  const [window, setWindow] = useState<"hour" | "day">("hour");
  const report = useResource(async () => (await api.usage(window)).data, [window]);
  useInterval(() => void report.reload(), 15_000);
  const data = report.data;
  const maxP95 = Math.max(1, ...(data?.operations ?? []).map((o) => o.p95_ms ?? 0));

  return (
    <>
      <fieldset class="segmented">
        <legend class="visually-hidden">Period</legend>
        {(["hour", "day"] as const).map((w) => (
          <label key={w} class={window === w ? "selected" : ""}>
            <input type="radio" name="window" value={w} checked={window === w} onChange={() => setWindow(w)} />
            {w === "hour" ? "Last hour" : "Last 24 hours"}
          </label>
        ))}
      </fieldset>
      <ErrorNotice error={report.error} />
      {!data && report.loading && <Loading label="Loading usage" />}
      {data && (
        <>
          <div class="tiles">
            <div class="tile">
              <p class="tile-label">Requests</p>
              <p class="tile-value">{data.totals.requests}</p>
            </div>
            <div class="tile">
              <p class="tile-label">Errors</p>
              <p class="tile-value">
                {data.totals.errors}
                {data.totals.requests > 0 && (
                  <span class="tile-note"> {((data.totals.errors / data.totals.requests) * 100).toFixed(1)} %</span>
                )}
              </p>
            </div>
            <div class="tile">
              <p class="tile-label">p50 latency</p>
              <p class="tile-value">{ms(data.totals.p50_ms)}</p>
            </div>
            <div class="tile">
              <p class="tile-label">p95 latency</p>
              <p class="tile-value">{ms(data.totals.p95_ms)}</p>
            </div>
          </div>
          {data.totals.requests === 0 ? (
            <EmptyState title={`No requests in the last ${window === "hour" ? "hour" : "24 hours"}`}>
              Calls to <code>/v1</code> with this account's keys or try-it-out tokens appear here within seconds.
            </EmptyState>
          ) : (
            <>
              <section class="card" aria-labelledby="requests-title">
                <h2 id="requests-title">Requests</h2>
                <RequestsChart report={data} />
              </section>
              <div class="grid-2">
                <section class="card" aria-labelledby="errors-title">
                  <h2 id="errors-title">Errors by code</h2>
                  {data.errors_by_code.length === 0 ? (
                    <p class="muted">No errors. </p>
                  ) : (
                    <Bars
                      rows={data.errors_by_code.map((e) => ({
                        label: `${e.status} ${e.code}`,
                        value: e.count,
                        tone: "bad",
                      }))}
                    />
                  )}
                </section>
                <section class="card" aria-labelledby="latency-title">
                  <h2 id="latency-title">Latency per operation</h2>
                  <table class="table compact latency">
                    <thead>
                      <tr>
                        <th scope="col">Operation</th>
                        <th scope="col">Requests</th>
                        <th scope="col">p50</th>
                        <th scope="col">p95</th>
                      </tr>
                    </thead>
                    <tbody>
                      {data.operations.map((o) => (
                        <tr key={`${o.provider_id}:${o.operation_id}`}>
                          <td data-label="Operation">
                            <code>
                              {o.provider_id}:{o.operation_id}
                            </code>
                            <span class="latency-bar" aria-hidden="true">
                              <span class="p95" style={{ width: `${((o.p95_ms ?? 0) / maxP95) * 100}%` }} />
                              <span class="p50" style={{ width: `${((o.p50_ms ?? 0) / maxP95) * 100}%` }} />
                            </span>
                          </td>
                          <td data-label="Requests">
                            {o.requests}
                            {o.errors > 0 && <span class="muted"> ({o.errors} errors)</span>}
                          </td>
                          <td data-label="p50">{ms(o.p50_ms)}</td>
                          <td data-label="p95">{ms(o.p95_ms)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </section>
              </div>
            </>
          )}
        </>
      )}
    </>
  );
}
