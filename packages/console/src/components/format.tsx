// Small display pieces: times (relative, with the exact time on hover and for screen readers), status badges,
// pretty JSON, and internal links.
import type { ComponentChildren } from "preact";
import { useId } from "preact/hooks";
import { onLinkClick } from "../router.ts";

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
const absolute = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });

export function relativeTime(iso: string, now = Date.now()): string {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) return seconds <= 0 ? "just now" : "in a few seconds";
  if (abs < 3600) return relative.format(Math.round(seconds / 60), "minute");
  if (abs < 86_400) return relative.format(Math.round(seconds / 3600), "hour");
  return relative.format(Math.round(seconds / 86_400), "day");
}

export function Time({ iso, empty = "—" }: { iso: string | null | undefined; empty?: string }) {
  if (!iso) return <span class="muted">{empty}</span>;
  const exact = absolute.format(new Date(iso));
  return (
    <time dateTime={iso} title={exact}>
      {relativeTime(iso)}
    </time>
  );
}

const tones: Record<string, string> = {
  active: "good",
  succeeded: "good",
  pending: "warn",
  needs_reauth: "warn",
  expired: "muted",
  revoked: "muted",
  deleted: "muted",
  failed: "bad",
};

export function Badge({ status, label }: { status: string; label?: string }) {
  return <span class={`badge badge-${tones[status] ?? "muted"}`}>{label ?? status.replace("_", " ")}</span>;
}

export function HttpStatus({ code }: { code: number | null }) {
  if (code === null) return <span class="badge badge-bad">no answer</span>;
  return <span class={`badge badge-${code >= 200 && code < 300 ? "good" : "bad"}`}>{code}</span>;
}

export function Json({ value, label }: { value: unknown; label: string }) {
  const id = useId();
  return (
    <figure class="json-figure" aria-labelledby={id}>
      <figcaption id={id} class="visually-hidden">
        {label}
      </figcaption>
      <pre class="json">
        <code>{JSON.stringify(value, null, 2)}</code>
      </pre>
    </figure>
  );
}

export function Link(props: { href: string; children: ComponentChildren; class?: string; current?: boolean }) {
  return (
    <a href={props.href} onClick={onLinkClick} class={props.class} aria-current={props.current ? "page" : undefined}>
      {props.children}
    </a>
  );
}
