// Starts a connect session (create_connect_session) and shows its link: the end user opens it, signs in at the
// provider and allows access; the connection then appears in the list.
import { useState } from "preact/hooks";
import { api, type Catalogue } from "../api.ts";
import { CopyButton } from "../components/copy.tsx";
import { ErrorNotice, Success } from "../components/feedback.tsx";
import { Time } from "../components/format.tsx";
import { useAction } from "../hooks.ts";
import type { ConnectSession } from "../resources.ts";

export function ConnectForm({ providers, loaded }: { providers: Catalogue["providers"]; loaded: boolean }) {
  const [provider, setProvider] = useState("");
  const [externalRef, setExternalRef] = useState("");
  const [session, setSession] = useState<ConnectSession | undefined>();
  const chosen = provider || providers[0]?.id || "";
  const start = useAction(async () => {
    // A link stays on screen only beside the request that made it: a failed new start must not leave the last one.
    setSession(undefined);
    const answer = await api.operation<ConnectSession>("create_connect_session", {
      provider_id: chosen,
      external_ref: externalRef.trim(),
    });
    setSession(answer.data);
  });

  return (
    <form
      class="card"
      aria-labelledby="connect-title"
      onSubmit={(event) => {
        event.preventDefault();
        void start.run();
      }}
    >
      <h2 id="connect-title">Connect a provider account</h2>
      <ErrorNotice error={start.error} onDismiss={start.clearError} />
      <div class="grid-2">
        <div class="field">
          <label for="connect-provider">Provider</label>
          <select id="connect-provider" value={chosen} onChange={(e) => setProvider(e.currentTarget.value)}>
            {providers.length === 0 && (
              <option value="">{loaded ? "No provider takes connections" : "Reading the providers…"}</option>
            )}
            {providers.map((p) => (
              <option key={p.id} value={p.id}>
                {p.title}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="connect-ref">External ref</label>
          <input
            id="connect-ref"
            required
            maxLength={255}
            value={externalRef}
            placeholder="user_8842"
            onInput={(e) => setExternalRef(e.currentTarget.value)}
          />
          <p class="hint">Your own id for the end user; a new connection replaces theirs at this provider.</p>
        </div>
      </div>
      <button type="submit" class="button-primary" disabled={start.pending || !chosen}>
        {start.pending ? "Starting…" : "Start connect session"}
      </button>
      {session && (
        <Success>
          <p>
            Send this link to the end user (single use, expires <Time iso={session.expires_at} />
            ):
          </p>
          <p class="link-row">
            <a href={session.connect_url} target="_blank" rel="noopener noreferrer" class="wrap" id="connect-link">
              {session.connect_url}
            </a>{" "}
            <CopyButton text={session.connect_url} label="Copy link" />
          </p>
        </Success>
      )}
    </form>
  );
}
