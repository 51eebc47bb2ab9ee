// API keys: create one with its scopes (the key is shown once, with a copy button), list them with their last use,
// revoke. Runs create_api_key, list_api_keys and revoke_api_key for the signed-in account.
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ConfirmButton } from "../components/confirm.tsx";
import { ShownOnce } from "../components/copy.tsx";
import { EmptyState, ErrorNotice, Loading } from "../components/feedback.tsx";
import { Badge, Time } from "../components/format.tsx";
import { shownError, useAction, useResource } from "../hooks.ts";
import type { ApiKey } from "../resources.ts";
import { KeyForm } from "./KeyForm.tsx";

function keyStatus(key: ApiKey): string {
  if (key.revoked_at) return "revoked";
  if (key.expires_at && Date.parse(key.expires_at) <= Date.now()) return "expired";
  return "active";
}

export function KeysPage() {
  const keys = useResource(async () => {
    // Every key of the account, a page of 100 at a time.
    const all: ApiKey[] = [];
    for (let cursor: string | undefined, more = true; more; ) {
      const page = await api.operation<{ api_keys: ApiKey[] }>("list_api_keys", {
        limit: 100,
        ...(cursor && { cursor }),
      });
      all.push(...page.data.api_keys);
      cursor = page.pagination?.next_cursor ?? undefined;
      more = cursor !== undefined;
    }
    return all;
  }, []);
  const [created, setCreated] = useState<{ key: string; api_key: ApiKey } | undefined>();
  const revoke = useAction(async (id: string) => {
    await api.operation("revoke_api_key", { key_id: id });
    await keys.reload();
  });

  return (
    <>
      <p class="lead">
        Keys authenticate your servers' calls: <code>Authorization: Bearer gwk_…</code>.
      </p>
      {created ? (
        <ShownOnce
          label={`Your new key “${created.api_key.name || created.api_key.id}”`}
          value={created.key}
          onDone={() => setCreated(undefined)}
        >
          <p class="small">
            Try it:{" "}
            <code class="wrap">
              curl -X POST {location.origin}/v1/… -H "Authorization: Bearer {created.api_key.key_prefix}…"
            </code>
          </p>
        </ShownOnce>
      ) : (
        <KeyForm
          onCreated={async (answer) => {
            setCreated(answer);
            await keys.reload();
          }}
        />
      )}

      <section aria-labelledby="keys-title" class="section">
        <h2 id="keys-title">Keys of this account</h2>
        <ErrorNotice {...shownError(keys, revoke)} />
        {keys.loading && !keys.data && <Loading label="Loading keys" />}
        {keys.data?.length === 0 && (
          <EmptyState title="No API keys yet">Create one above to call the API from your server.</EmptyState>
        )}
        {keys.data && keys.data.length > 0 && (
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.map((key) => {
                const status = keyStatus(key);
                return (
                  <tr key={key.id}>
                    <td data-label="Name">{key.name || <span class="muted">unnamed</span>}</td>
                    <td data-label="Key">
                      <code>{key.key_prefix}…</code>
                    </td>
                    <td data-label="Scopes">
                      {key.scopes.map((s) => (
                        <code key={s} class="chip">
                          {s}
                        </code>
                      ))}
                    </td>
                    <td data-label="Created">
                      <Time iso={key.created_at} />
                    </td>
                    <td data-label="Last used">
                      <Time iso={key.last_used_at} empty="never" />
                    </td>
                    <td data-label="Status">
                      <Badge status={status} />
                    </td>
                    <td class="row-actions">
                      {status === "active" && (
                        <ConfirmButton
                          label="Revoke"
                          ariaLabel={`Revoke ${key.name || key.key_prefix}`}
                          title="Revoke this key?"
                          confirmLabel="Revoke key"
                          onConfirm={() => void revoke.run(key.id)}
                          disabled={revoke.pending}
                        >
                          <p>
                            Calls with <code>{key.key_prefix}…</code> ({key.name || "unnamed"}) are refused within
                            seconds on every gateway node. This cannot be undone.
                          </p>
                        </ConfirmButton>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
