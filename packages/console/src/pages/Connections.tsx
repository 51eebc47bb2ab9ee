// Connections: the account's end users' provider accounts. Search by the start of external_ref, filter by provider,
// see their status, delete one, and start a connect session whose link the end user opens. Connection ids never
// reach this page: the server hands out opaque handles instead.
import { useState } from "preact/hooks";
import { api, type Envelope } from "../api.ts";
import { connectableProviders, useCatalogue } from "../catalogue.ts";
import { ConfirmButton } from "../components/confirm.tsx";
import { EmptyState, ErrorNotice, Loading } from "../components/feedback.tsx";
import { Badge, Time } from "../components/format.tsx";
import { shownError, useAction, useResource } from "../hooks.ts";
import type { Connection } from "../resources.ts";
import { ConnectForm } from "./ConnectForm.tsx";

type Page = Envelope<{ connections: Connection[] }>;

export function ConnectionsPage() {
  const catalogue = useCatalogue();
  const [draft, setDraft] = useState({ externalRef: "", provider: "" });
  const [filter, setFilter] = useState(draft);
  const [more, setMore] = useState<Connection[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const list = (after?: string) =>
    api.operation<{ connections: Connection[] }>("list_connections", {
      ...(filter.externalRef && { external_ref_prefix: filter.externalRef }),
      ...(filter.provider && { provider_id: filter.provider }),
      ...(after && { cursor: after }),
    });
  const first = useResource(async () => {
    const page: Page = await list();
    setMore([]);
    setCursor(page.pagination?.next_cursor ?? null);
    return page.data.connections;
  }, [filter]);
  const loadMore = useAction(async () => {
    const page: Page = await list(cursor ?? undefined);
    setMore([...more, ...page.data.connections]);
    setCursor(page.pagination?.next_cursor ?? null);
  });
  const remove = useAction(async (id: string) => {
    await api.operation("delete_connection", { connection_id: id });
    await first.reload();
  });
  const rows = [...(first.data ?? []), ...more];
  const filtered = filter.externalRef !== "" || filter.provider !== "";

  return (
    <>
      <p class="lead">
        A connection is one end user's authorised account at a provider. Your server calls credentials operations with{" "}
        <code>X-Gateway-Connection-Id</code>; find the id with <code>list_connections {"{external_ref}"}</code>.
      </p>
      <ConnectForm providers={connectableProviders(catalogue)} loaded={catalogue.loaded} />

      <section class="section" aria-labelledby="connections-title">
        <h2 id="connections-title">Connections of this account</h2>
        <search>
          <form
            class="toolbar"
            onSubmit={(event) => {
              event.preventDefault();
              setFilter({ ...draft, externalRef: draft.externalRef.trim() });
            }}
          >
            <div class="field">
              <label for="search-ref">External ref starts with</label>
              <input
                id="search-ref"
                type="search"
                value={draft.externalRef}
                placeholder="user_8842"
                onInput={(e) => setDraft({ ...draft, externalRef: e.currentTarget.value })}
              />
            </div>
            <div class="field">
              <label for="search-provider">Provider</label>
              <select
                id="search-provider"
                value={draft.provider}
                onChange={(e) => setDraft({ ...draft, provider: e.currentTarget.value })}
              >
                <option value="">All providers</option>
                {connectableProviders(catalogue).map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.title}
                  </option>
                ))}
              </select>
            </div>
            <button type="submit" class="button-secondary">
              Search
            </button>
          </form>
        </search>
        <ErrorNotice {...shownError(first, remove, loadMore)} />
        {first.loading && !first.data && <Loading label="Loading connections" />}
        {first.data && rows.length === 0 && (
          <EmptyState title={filtered ? "No connection matches" : "No connections yet"}>
            {filtered
              ? "Search finds the external refs that start with what you typed (case-sensitive). Clear the fields and search again to see them all."
              : "Start a connect session above and open its link to connect a provider account."}
          </EmptyState>
        )}
        {rows.length > 0 && (
          <table class="table">
            <thead>
              <tr>
                <th scope="col">External ref</th>
                <th scope="col">Provider</th>
                <th scope="col">Status</th>
                <th scope="col">Connected</th>
                <th scope="col">Token refreshed</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((connection) => (
                <tr key={connection.id}>
                  <td data-label="External ref">
                    <code>{connection.external_ref}</code>
                  </td>
                  <td data-label="Provider">{connection.provider_id}</td>
                  <td data-label="Status">
                    <Badge status={connection.status} />
                  </td>
                  <td data-label="Connected">
                    <Time iso={connection.created_at} />
                  </td>
                  <td data-label="Token refreshed">
                    <Time iso={connection.last_refreshed_at} empty="not yet" />
                  </td>
                  <td class="row-actions">
                    <ConfirmButton
                      label="Delete"
                      ariaLabel={`Delete the ${connection.provider_id} connection of ${connection.external_ref}`}
                      title="Delete this connection?"
                      confirmLabel="Delete connection"
                      onConfirm={() => void remove.run(connection.id)}
                      disabled={remove.pending}
                    >
                      <p>
                        The grant of <code>{connection.external_ref}</code> at {connection.provider_id} is revoked and
                        calls with this connection answer 404. The end user can connect again with a new session.
                      </p>
                    </ConfirmButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {cursor && (
          <button
            type="button"
            class="button-secondary"
            onClick={() => void loadMore.run()}
            disabled={loadMore.pending}
          >
            {loadMore.pending ? "Loading…" : "Load more"}
          </button>
        )}
      </section>
    </>
  );
}
