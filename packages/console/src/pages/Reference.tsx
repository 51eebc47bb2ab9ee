// The API reference with try-it-out: the /docs renderer on the same document, authenticated with a delegation token
// minted for the signed-in user (10 minutes, renewed before it runs out). Credentials operations run against the
// connection chosen here; the token carries it on the server, so its id never reaches this page.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, type DelegationToken } from "../api.ts";
import { useCatalogue } from "../catalogue.ts";
import { CopyButton } from "../components/copy.tsx";
import { ErrorNotice, Loading } from "../components/feedback.tsx";
import { asApiError, useAction } from "../hooks.ts";
import { browserSpec, loadSwaggerUi, mountSwaggerUi, type Spec } from "../swagger.ts";
import { ConnectionPicker } from "./ConnectionPicker.tsx";

const renewBeforeMs = 30_000;
let spec: Promise<Spec> | undefined;
const timeOfDay = new Intl.DateTimeFormat(undefined, { timeStyle: "short" });

export function ReferencePage() {
  const catalogue = useCatalogue();
  const [connection, setConnection] = useState("");
  const [provider, setProvider] = useState("");
  const [token, setToken] = useState<DelegationToken | undefined>();
  // The token held, and the choice (connection and provider) it was minted for.
  const current = useRef<{ token: DelegationToken; choice: string } | undefined>(undefined);
  const choice = useRef({ connection, provider });
  choice.current = { connection, provider };
  const chosen = () => `${choice.current.provider}\n${choice.current.connection}`;
  const host = useRef<HTMLDivElement>(null);
  const [renderError, setRenderError] = useState<Error | undefined>();
  const [ready, setReady] = useState(false);

  const mint = useAction(async () => {
    const { connection: picked, provider: only } = choice.current;
    const mintedFor = chosen();
    const minted = (await api.mintToken({ ...(only && { scopes: [only] }), connection: picked || null })).data;
    // The choice changed while this token was minted: it carries the connection no longer chosen, and is dropped.
    if (chosen() !== mintedFor) return undefined;
    current.current = { token: minted, choice: mintedFor };
    setToken(minted);
    return minted;
  });

  // Swagger UI asks for the header at every Execute: a fresh token when the current one is about to end, or was
  // minted for another choice than the one on screen.
  const authorization = async () => {
    const held = current.current;
    const fresh = held && Date.parse(held.token.expires_at) - Date.now() > renewBeforeMs;
    if (held && fresh && held.choice === chosen()) return held.token.token;
    const minted = await mint.run();
    if (!minted) throw asApiError(new Error("Could not mint a delegation token for the chosen connection"));
    return minted.token;
  };

  useEffect(() => {
    void mint.run();
  }, [connection, provider]);

  // Rendered again when the scopes change: the reference then shows just the chosen provider (and renders faster).
  useEffect(() => {
    let cancelled = false;
    setReady(false);
    spec ??= fetch("/openapi.json").then((r) => r.json() as Promise<Spec>);
    Promise.all([loadSwaggerUi(), spec]).then(
      ([bundle, document]) => {
        if (cancelled || !host.current) return;
        mountSwaggerUi(
          bundle,
          host.current,
          browserSpec(document, location.origin, provider || undefined),
          authorization,
        );
        setReady(true);
      },
      (error: Error) => {
        spec = undefined;
        setRenderError(error);
      },
    );
    return () => {
      cancelled = true;
    };
  }, [provider]);

  const providers = catalogue.providers.filter((p) => p.id !== "platform");
  return (
    <>
      <p class="lead">
        Every operation, with its schemas and examples. <strong>Try it out</strong> runs real calls as your account with
        a short-lived delegation token; management operations live on the console's other pages.
      </p>
      <section class="card try-controls" aria-labelledby="try-title">
        <h2 id="try-title">Try-it-out credentials</h2>
        <div class="grid-2">
          <ConnectionPicker value={connection} onChange={setConnection} />
          <div class="field">
            <label for="try-scopes">Token scopes</label>
            <select id="try-scopes" value={provider} onChange={(e) => setProvider(e.currentTarget.value)}>
              <option value="">Every provider</option>
              {providers.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.title} only
                </option>
              ))}
            </select>
          </div>
        </div>
        <ErrorNotice error={mint.error} onDismiss={mint.clearError} />
        {token && (
          <p class="token-line" aria-live="polite">
            Token <code>{token.token.slice(0, 10)}…</code> valid until {timeOfDay.format(new Date(token.expires_at))} ·
            scopes{" "}
            {token.scopes.map((s) => (
              <code key={s} class="chip">
                {s}
              </code>
            ))}{" "}
            <CopyButton text={token.token} label="Copy token" compact />{" "}
            <button
              type="button"
              class="button-ghost button-small"
              onClick={() => void mint.run()}
              disabled={mint.pending}
            >
              Renew
            </button>
          </p>
        )}
      </section>
      {renderError && <ErrorNotice error={asApiError(renderError)} />}
      {!ready && !renderError && <Loading label="Loading the reference" />}
      <div ref={host} class="swagger-host" />
    </>
  );
}
