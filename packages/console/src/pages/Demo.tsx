// The public demo (/demo): pick a none-mode operation, edit its JSON input (its example to start with), run it
// through the gateway's own demo principal, and read the answer: the envelope, or the error with its request id.
import { useEffect, useState } from "preact/hooks";
import { ApiError, api } from "../api.ts";
import { ErrorNotice, Loading } from "../components/feedback.tsx";
import { Json } from "../components/format.tsx";
import { useAction, useResource } from "../hooks.ts";

export function DemoPage() {
  const listing = useResource(async () => (await api.demoOperations()).data, []);
  const [selected, setSelected] = useState("");
  const [input, setInput] = useState("{}");
  const [result, setResult] = useState<{ status: string; body: unknown } | undefined>();
  const operations = listing.data?.operations ?? [];
  const operation = operations.find((o) => `${o.provider_id}:${o.operation_id}` === selected) ?? operations[0];
  useEffect(() => {
    document.title = "Demo · Provider Gateway";
  }, []);
  // The first operation's example once the listing has come; a choice of another operation sets its example at once,
  // in the change itself: an effect run after the change could land after a quick edit and run, and undo them.
  const first = operations[0];
  useEffect(() => {
    if (first && selected === "") setInput(JSON.stringify(first.example_input, null, 2));
  }, [first?.provider_id, first?.operation_id]);
  const choose = (value: string) => {
    const chosen = operations.find((o) => `${o.provider_id}:${o.operation_id}` === value);
    setSelected(value);
    if (chosen) setInput(JSON.stringify(chosen.example_input, null, 2));
    setResult(undefined);
  };

  const run = useAction(async () => {
    if (!operation) return;
    let body: unknown;
    try {
      body = JSON.parse(input);
    } catch (error) {
      throw new ApiError(
        0,
        "invalid_json",
        `The input is not valid JSON: ${(error as Error).message}`,
        null,
        undefined,
        null,
      );
    }
    setResult(undefined);
    const answer = await api.demoRun(operation.provider_id, operation.operation_id, body);
    setResult({ status: "200 OK", body: answer });
  });

  const providers = [...new Set(operations.map((o) => o.provider_title))];
  return (
    <div class="demo">
      <header class="topbar">
        <a class="brand" href="/demo">
          <span class="brand-mark" aria-hidden="true">
            ◆
          </span>{" "}
          Provider Gateway demo
        </a>
        <nav aria-label="Elsewhere" class="who">
          <a href="/docs">API reference</a>
          <a href="/console">Sign in</a>
        </nav>
      </header>
      <main id="main" class="content demo-content">
        <h1>Try the gateway</h1>
        <p class="lead">
          Run public operations (no connection needed) through this server's demo key. Calls are limited to{" "}
          {listing.data ? `${listing.data.rate_limit.perMinute} a minute` : "a few a minute"} per visitor.
        </p>
        <ErrorNotice error={listing.error} />
        {listing.loading && !listing.data && <Loading label="Loading operations" />}
        {operation && (
          <form
            class="card"
            onSubmit={(event) => {
              event.preventDefault();
              void run.run();
            }}
          >
            <div class="field">
              <label for="demo-operation">Operation</label>
              <select
                id="demo-operation"
                value={`${operation.provider_id}:${operation.operation_id}`}
                onChange={(e) => choose(e.currentTarget.value)}
              >
                {providers.map((title) => (
                  <optgroup key={title} label={title}>
                    {operations
                      .filter((o) => o.provider_title === title)
                      .map((o) => (
                        <option key={`${o.provider_id}:${o.operation_id}`} value={`${o.provider_id}:${o.operation_id}`}>
                          {o.operation_id} — {o.summary}
                        </option>
                      ))}
                  </optgroup>
                ))}
              </select>
              {operation.description && <p class="hint">{operation.description}</p>}
            </div>
            <div class="field">
              <label for="demo-input">Input (JSON)</label>
              <textarea
                id="demo-input"
                rows={8}
                spellcheck={false}
                class="code-input"
                value={input}
                onInput={(e) => setInput(e.currentTarget.value)}
              />
              <p class="hint">
                <code>
                  POST /v1/{operation.provider_id}/{operation.operation_id}
                </code>
              </p>
            </div>
            <button type="submit" class="button-primary" disabled={run.pending}>
              {run.pending ? "Running…" : "Run"}
            </button>
          </form>
        )}
        <ErrorNotice error={run.error} onDismiss={run.clearError} />
        {result && (
          <section class="card" aria-labelledby="demo-result">
            <h2 id="demo-result">Answer · {result.status}</h2>
            <Json value={result.body} label="Answer" />
          </section>
        )}
      </main>
    </div>
  );
}
