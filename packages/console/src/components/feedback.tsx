// How the console shows state: errors with their code, message, field problems and request id; empty states;
// loading; and short confirmations announced to screen readers.
import type { ComponentChildren } from "preact";
import type { ApiError } from "../api.ts";
import { CopyButton } from "./copy.tsx";

export function ErrorNotice({
  error,
  onDismiss,
}: {
  error: ApiError | undefined;
  onDismiss?: (() => void) | undefined;
}) {
  if (!error) return null;
  return (
    <div class="notice notice-error" role="alert">
      <div class="notice-body">
        <p class="notice-title">{error.message}</p>
        {error.details && error.details.length > 0 && (
          <ul class="problems">
            {error.details.map((problem) => (
              <li key={`${problem.path}${problem.message}`}>
                <code>{problem.path || "(body)"}</code> {problem.message}
              </li>
            ))}
          </ul>
        )}
        <p class="notice-meta">
          <span class="code-chip">{error.code}</span>
          {error.status > 0 && <span> HTTP {error.status}</span>}
          {error.retryAfter && <span> · retry in {error.retryAfter} s</span>}
          {error.requestId && (
            <span>
              {" "}
              · request id <code class="request-id">{error.requestId}</code>{" "}
              <CopyButton text={error.requestId} label="Copy request id" compact />
            </span>
          )}
        </p>
      </div>
      {onDismiss && (
        <button type="button" class="button-ghost" onClick={onDismiss} aria-label="Dismiss error">
          ×
        </button>
      )}
    </div>
  );
}

export function Success({ children }: { children: ComponentChildren }) {
  return (
    <div class="notice notice-success" role="status">
      <div class="notice-body">{children}</div>
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{title}</p>
      {children && <div class="empty-body">{children}</div>}
    </div>
  );
}

export function Loading({ label = "Loading" }: { label?: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" /> {label}…
    </p>
  );
}
