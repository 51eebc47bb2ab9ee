// The connection try-it-out runs credentials operations against: any of the account's connections, found by the start
// of external_ref (as on the Connections page) and listed 100 at a time with a "Load more". The chosen one stays in the
// list while another search runs. Options carry handles: connection ids never reach the page.
import { useState } from "preact/hooks";
import { api, type Envelope } from "../api.ts";
import { useAction, useResource } from "../hooks.ts";
import type { Connection } from "../resources.ts";

type Page = Envelope<{ connections: Connection[] }>;

export function ConnectionPicker({ value, onChange }: { value: string; onChange: (handle: string) => void }) {
  const [draft, setDraft] = useState("");
  const [prefix, setPrefix] = useState("");
  const [more, setMore] = useState<Connection[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [chosen, setChosen] = useState<Connection | undefined>();
  const list = (after?: string): Promise<Page> =>
    api.operation<{ connections: Connection[] }>("list_connections", {
      limit: 100,
      ...(prefix && { external_ref_prefix: prefix }),
      ...(after && { cursor: after }),
    });
  const first = useResource(async () => {
    const page = await list();
    setMore([]);
    setCursor(page.pagination?.next_cursor ?? null);
    return page.data.connections;
  }, [prefix]);
  const loadMore = useAction(async () => {
    const page = await list(cursor ?? undefined);
    setMore([...more, ...page.data.connections]);
    setCursor(page.pagination?.next_cursor ?? null);
  });
  const rows = [...(first.data ?? []), ...more];
  const options = chosen && !rows.some((c) => c.id === chosen.id) ? [chosen, ...rows] : rows;

  return (
    <div class="field">
      <label for="try-connection">Connection for credentials operations</label>
      <select
        id="try-connection"
        value={value}
        onChange={(e) => {
          const handle = e.currentTarget.value;
          setChosen(options.find((c) => c.id === handle));
          onChange(handle);
        }}
      >
        <option value="">None (mode none operations only)</option>
        {options.map((c) => (
          <option key={c.id} value={c.id}>
            {c.provider_id} · {c.external_ref}
          </option>
        ))}
      </select>
      <search aria-label="Find a connection">
        <form
          class="picker-search"
          onSubmit={(event) => {
            event.preventDefault();
            setPrefix(draft.trim());
          }}
        >
          <label for="try-connection-search" class="visually-hidden">
            External ref starts with
          </label>
          <input
            id="try-connection-search"
            type="search"
            value={draft}
            placeholder="External ref starts with…"
            onInput={(e) => setDraft(e.currentTarget.value)}
          />
          <button type="submit" class="button-secondary button-small">
            Find
          </button>
          {cursor && (
            <button
              type="button"
              class="button-ghost button-small"
              onClick={() => void loadMore.run()}
              disabled={loadMore.pending}
            >
              {loadMore.pending ? "Loading…" : "Load more"}
            </button>
          )}
        </form>
      </search>
      <p class="hint" aria-live="polite">
        {first.loading
          ? "Loading connections…"
          : first.error || loadMore.error
            ? `Could not list connections: ${(first.error ?? loadMore.error)?.message}`
            : `${rows.length} ${prefix ? `starting with “${prefix}”` : "listed"}${cursor ? ", more to load" : ""}. Its id stays on the server: the token carries it.`}
      </p>
    </div>
  );
}
