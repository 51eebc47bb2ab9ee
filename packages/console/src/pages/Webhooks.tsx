// The account's one webhook endpoint: register it (its signing secret is shown once), change its URL and event types,
// rotate the secret with a grace period, send a test event, or delete it.
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ConfirmButton } from "../components/confirm.tsx";
import { ShownOnce } from "../components/copy.tsx";
import { ErrorNotice, Loading, Success } from "../components/feedback.tsx";
import { Link, Time } from "../components/format.tsx";
import { useAction, useResource } from "../hooks.ts";
import type { GatewayEvent, WebhookEndpoint } from "../resources.ts";
import { EndpointForm } from "./EndpointForm.tsx";

const graces = [
  { value: 0, label: "None: the old secret stops at once" },
  { value: 3600, label: "1 hour" },
  { value: 86_400, label: "24 hours" },
  { value: 604_800, label: "7 days" },
];

export function WebhooksPage() {
  const endpoint = useResource(async () => {
    try {
      return (await api.operation<{ endpoint: WebhookEndpoint }>("get_webhook_endpoint")).data.endpoint;
    } catch (error) {
      if ((error as { code?: string }).code === "not_found") return null;
      throw error;
    }
  }, []);
  const [secret, setSecret] = useState<string | undefined>();
  const [editing, setEditing] = useState(false);
  const [grace, setGrace] = useState(0);
  const [sent, setSent] = useState<GatewayEvent | undefined>();
  const rotate = useAction(async () => {
    const answer = await api.operation<{ secret: string }>("rotate_webhook_secret", { grace_seconds: grace });
    setSecret(answer.data.secret);
    await endpoint.reload();
  });
  const test = useAction(async () =>
    setSent((await api.operation<{ event: GatewayEvent }>("send_test_event")).data.event),
  );
  const remove = useAction(async () => {
    await api.operation("delete_webhook_endpoint");
    setSent(undefined);
    await endpoint.reload();
  });
  const saved = async (answer: { secret: string | null }) => {
    if (answer.secret) setSecret(answer.secret);
    setEditing(false);
    await endpoint.reload();
  };

  if (endpoint.loading && endpoint.data === undefined) return <Loading label="Loading the endpoint" />;
  const current = endpoint.data;
  return (
    <>
      <p class="lead">
        The gateway POSTs events to one HTTPS endpoint per account, signed with <code>Gateway-Signature</code>{" "}
        (HMAC-SHA256 of <code>t.body</code>) and retried for 24 hours until it answers 2xx.
      </p>
      <ErrorNotice error={endpoint.error ?? rotate.error ?? test.error ?? remove.error} />
      {secret && (
        <ShownOnce label="Signing secret" value={secret} onDone={() => setSecret(undefined)}>
          <p class="small">
            Verify every delivery with it (the SDK's <code>verifyWebhook</code> does).
          </p>
        </ShownOnce>
      )}
      {current === null && <EndpointForm endpoint={undefined} onSaved={saved} />}
      {current && editing && <EndpointForm endpoint={current} onSaved={saved} onCancel={() => setEditing(false)} />}
      {current && !editing && (
        <section class="card" aria-labelledby="endpoint-title">
          <h2 id="endpoint-title">Endpoint</h2>
          <dl class="facts">
            <dt>URL</dt>
            <dd>
              <code class="wrap">{current.url}</code>
            </dd>
            <dt>Event types</dt>
            <dd>
              {current.event_types.map((t) => (
                <code key={t} class="chip">
                  {t}
                </code>
              ))}
            </dd>
            <dt>Registered</dt>
            <dd>
              <Time iso={current.created_at} />
            </dd>
            <dt>Previous secret</dt>
            <dd>
              {current.previous_secret_expires_at ? (
                <>
                  still signing until <Time iso={current.previous_secret_expires_at} />
                </>
              ) : (
                <span class="muted">none</span>
              )}
            </dd>
          </dl>
          <div class="actions">
            <button type="button" class="button-primary" onClick={() => void test.run()} disabled={test.pending}>
              {test.pending ? "Sending…" : "Send test event"}
            </button>
            <button type="button" class="button-secondary" onClick={() => setEditing(true)}>
              Change URL or event types
            </button>
            <ConfirmButton
              small={false}
              label="Delete endpoint"
              title="Delete the endpoint?"
              confirmLabel="Delete endpoint"
              onConfirm={() => void remove.run()}
            >
              <p>
                Deliveries still pending end as failed. Events stay in the log and can be redelivered to a new endpoint.
              </p>
            </ConfirmButton>
          </div>
          {sent && (
            <Success>
              Test event <code>{sent.id}</code> recorded.{" "}
              <Link href={`/console/events/${encodeURIComponent(sent.id)}`}>See its delivery attempts</Link>
            </Success>
          )}
        </section>
      )}
      {current && (
        <form
          class="card"
          aria-labelledby="rotate-title"
          onSubmit={(event) => {
            event.preventDefault();
            void rotate.run();
          }}
        >
          <h2 id="rotate-title">Rotate the signing secret</h2>
          <p>
            A new secret is issued and shown once. During the grace period deliveries carry a signature for each secret.
          </p>
          <div class="field field-narrow">
            <label for="grace">Grace period for the old secret</label>
            <select id="grace" value={grace} onChange={(e) => setGrace(Number(e.currentTarget.value))}>
              {graces.map((g) => (
                <option key={g.value} value={g.value}>
                  {g.label}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" class="button-secondary" disabled={rotate.pending}>
            {rotate.pending ? "Rotating…" : "Rotate secret"}
          </button>
        </form>
      )}
    </>
  );
}
