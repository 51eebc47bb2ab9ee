// The form that creates an API key: a name, its scopes (everything, whole providers, or single operations, from
// the catalogue) and an optional expiry.
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { useCatalogue } from "../catalogue.ts";
import { ErrorNotice } from "../components/feedback.tsx";
import { useAction } from "../hooks.ts";
import type { ApiKey } from "../resources.ts";

const expiries = [
  { value: "", label: "Never" },
  { value: "30", label: "In 30 days" },
  { value: "90", label: "In 90 days" },
  { value: "365", label: "In a year" },
];

export function KeyForm({ onCreated }: { onCreated: (answer: { key: string; api_key: ApiKey }) => void }) {
  const catalogue = useCatalogue();
  const [name, setName] = useState("");
  const [everything, setEverything] = useState(true);
  const [scopes, setScopes] = useState<Set<string>>(new Set());
  const [expiry, setExpiry] = useState("");
  const create = useAction(async () => {
    const days = Number(expiry);
    const answer = await api.operation<{ key: string; api_key: ApiKey }>("create_api_key", {
      ...(name.trim() && { name: name.trim() }),
      scopes: everything ? ["*"] : [...scopes],
      ...(days > 0 && { expires_at: new Date(Date.now() + days * 86_400_000).toISOString() }),
    });
    setName("");
    setScopes(new Set());
    setEverything(true);
    onCreated(answer.data);
  });
  const toggle = (scope: string, on: boolean) => {
    const next = new Set(scopes);
    if (on) next.add(scope);
    else next.delete(scope);
    setScopes(next);
  };

  return (
    <form
      class="card"
      aria-labelledby="new-key-title"
      onSubmit={(event) => {
        event.preventDefault();
        void create.run();
      }}
    >
      <h2 id="new-key-title">Create a key</h2>
      <ErrorNotice error={create.error} onDismiss={create.clearError} />
      <div class="grid-2">
        <div class="field">
          <label for="key-name">Name</label>
          <input
            id="key-name"
            value={name}
            maxLength={100}
            placeholder="checkout service"
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <p class="hint">To recognise the key later.</p>
        </div>
        <div class="field">
          <label for="key-expiry">Expires</label>
          <select id="key-expiry" value={expiry} onChange={(e) => setExpiry(e.currentTarget.value)}>
            {expiries.map((e) => (
              <option key={e.value} value={e.value}>
                {e.label}
              </option>
            ))}
          </select>
        </div>
      </div>
      <fieldset class="field">
        <legend>Scopes</legend>
        <label class="check">
          <input type="checkbox" checked={everything} onChange={(e) => setEverything(e.currentTarget.checked)} />
          Every operation (<code>*</code>)
        </label>
        {!everything && (
          <div class="scope-list">
            {catalogue.providers.map((provider) => (
              <div key={provider.id} class="scope-provider">
                <label class="check">
                  <input
                    type="checkbox"
                    checked={scopes.has(provider.id)}
                    onChange={(e) => toggle(provider.id, e.currentTarget.checked)}
                  />
                  {provider.title} — all operations (<code>{provider.id}</code>)
                </label>
                {!scopes.has(provider.id) && (
                  <details>
                    <summary>Single operations of {provider.title}</summary>
                    {provider.operations.map((operation) => {
                      const scope = `${provider.id}:${operation.id}`;
                      return (
                        <label key={scope} class="check check-nested">
                          <input
                            type="checkbox"
                            checked={scopes.has(scope)}
                            onChange={(e) => toggle(scope, e.currentTarget.checked)}
                          />
                          <code>{operation.id}</code> <span class="muted">{operation.summary}</span>
                        </label>
                      );
                    })}
                  </details>
                )}
              </div>
            ))}
          </div>
        )}
      </fieldset>
      <button type="submit" class="button-primary" disabled={create.pending || (!everything && scopes.size === 0)}>
        {create.pending ? "Creating…" : "Create key"}
      </button>
    </form>
  );
}
