// Charts drawn as SVG and plain HTML, no library: requests over time (successes and errors stacked), and horizontal
// bars. Each has a text alternative: an aria-label summary and the numbers in a table behind a disclosure.
import type { UsageReport } from "../api.ts";

const clock = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });

export function RequestsChart({ report }: { report: UsageReport }) {
  const { series } = report;
  const max = Math.max(1, ...series.map((p) => p.requests));
  const width = 600;
  const height = 160;
  const barWidth = width / series.length;
  const peak = series.reduce(
    (best, p) => (p.requests > best.requests ? p : best),
    series[0] ?? { start: report.from, requests: 0, errors: 0 },
  );
  const summary =
    `${report.totals.requests} requests and ${report.totals.errors} errors from ${clock.format(new Date(report.from))} ` +
    `to ${clock.format(new Date(report.to))}; busiest ${clock.format(new Date(peak.start))} with ${peak.requests}.`;
  const ticks = [0, Math.floor(series.length / 2), series.length - 1];

  return (
    <figure class="chart">
      <p class="chart-max" aria-hidden="true">
        {max} per bar
      </p>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={summary} preserveAspectRatio="none">
        {[0.25, 0.5, 0.75].map((f) => (
          <line key={f} x1="0" x2={width} y1={height * f} y2={height * f} class="grid" />
        ))}
        <line x1="0" x2={width} y1={height} y2={height} class="axis" />
        {series.map((point, i) => {
          const ok = point.requests - point.errors;
          const okHeight = (ok / max) * height;
          const errorHeight = (point.errors / max) * height;
          const x = i * barWidth + barWidth * 0.1;
          return (
            <g key={point.start}>
              <title>{`${clock.format(new Date(point.start))}: ${point.requests} requests, ${point.errors} errors`}</title>
              <rect x={x} width={barWidth * 0.8} y={height - okHeight} height={okHeight} class="bar-ok" />
              <rect
                x={x}
                width={barWidth * 0.8}
                y={height - okHeight - errorHeight}
                height={errorHeight}
                class="bar-error"
              />
            </g>
          );
        })}
      </svg>
      <div class="ticks" aria-hidden="true">
        {ticks.map((i) => {
          const point = series[i];
          return point ? <span key={i}>{clock.format(new Date(point.start))}</span> : null;
        })}
      </div>
      <figcaption class="legend">
        <span class="key key-ok" aria-hidden="true" /> succeeded <span class="key key-error" aria-hidden="true" />{" "}
        errors · {report.bucket_seconds / 60}-minute bars
      </figcaption>
      <details class="data-table">
        <summary>Show the numbers</summary>
        <table class="table compact">
          <thead>
            <tr>
              <th scope="col">From</th>
              <th scope="col">Requests</th>
              <th scope="col">Errors</th>
            </tr>
          </thead>
          <tbody>
            {series
              .filter((p) => p.requests > 0)
              .map((p) => (
                <tr key={p.start}>
                  <td>{clock.format(new Date(p.start))}</td>
                  <td>{p.requests}</td>
                  <td>{p.errors}</td>
                </tr>
              ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

export function Bars({ rows, unit = "" }: { rows: { label: string; value: number; tone?: string }[]; unit?: string }) {
  const max = Math.max(1, ...rows.map((r) => r.value));
  return (
    <ul class="hbars">
      {rows.map((row) => (
        <li key={row.label}>
          <span class="hbar-label">
            <code>{row.label}</code>
          </span>
          <span class="hbar-track" aria-hidden="true">
            <span class={`hbar hbar-${row.tone ?? "neutral"}`} style={{ width: `${(row.value / max) * 100}%` }} />
          </span>
          <span class="hbar-value">
            {row.value}
            {unit}
          </span>
        </li>
      ))}
    </ul>
  );
}
