// URL and event types of the webhook endpoint: registers it (set_webhook_endpoint) or changes it.
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { eventTypes, useCatalogue } from "../catalogue.ts";
import { ErrorNotice } from "../components/feedback.tsx";
import { useAction } from "../hooks.ts";
import type { WebhookEndpoint } from "../resources.ts";

export function EndpointForm(props: {
  endpoint: WebhookEndpoint | undefined;
  onSaved: (answer: { endpoint: WebhookEndpoint; secret: string | null }) => void;
  onCancel?: () => void;
}) {
  const types = eventTypes(useCatalogue());
  const [url, setUrl] = useState(props.endpoint?.url ?? "");
  const [all, setAll] = useState(props.endpoint ? props.endpoint.event_types.includes("*") : true);
  const [chosen, setChosen] = useState(new Set(props.endpoint?.event_types.filter((t) => t !== "*") ?? []));
  const save = useAction(async () => {
    const answer = await api.operation<{ endpoint: WebhookEndpoint; secret: string | null }>("set_webhook_endpoint", {
      url: url.trim(),
      event_types: all ? ["*"] : [...chosen],
    });
    props.onSaved(answer.data);
  });

  return (
    <form
      class="card"
      aria-labelledby="endpoint-form-title"
      onSubmit={(event) => {
        event.preventDefault();
        void save.run();
      }}
    >
      <h2 id="endpoint-form-title">{props.endpoint ? "Change the endpoint" : "Register an endpoint"}</h2>
      <ErrorNotice error={save.error} onDismiss={save.clearError} />
      <div class="field">
        <label for="endpoint-url">URL</label>
        <input
          id="endpoint-url"
          type="url"
          required
          inputMode="url"
          placeholder="https://hooks.example.com/gateway"
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
        <p class="hint">HTTPS, reachable from the gateway. Every subscribed event is POSTed here, signed.</p>
      </div>
      <fieldset class="field">
        <legend>Event types</legend>
        <label class="check">
          <input type="checkbox" checked={all} onChange={(e) => setAll(e.currentTarget.checked)} />
          All events (<code>*</code>), including types added later
        </label>
        {!all && (
          <div class="type-grid">
            {types.map((type) => (
              <label key={type} class="check">
                <input
                  type="checkbox"
                  checked={chosen.has(type)}
                  onChange={(e) => {
                    const next = new Set(chosen);
                    if (e.currentTarget.checked) next.add(type);
                    else next.delete(type);
                    setChosen(next);
                  }}
                />
                <code>{type}</code>
              </label>
            ))}
          </div>
        )}
      </fieldset>
      <div class="actions">
        <button type="submit" class="button-primary" disabled={save.pending || (!all && chosen.size === 0)}>
          {save.pending ? "Saving…" : props.endpoint ? "Save changes" : "Register endpoint"}
        </button>
        {props.onCancel && (
          <button type="button" class="button-secondary" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
