// The Connection resource as the API and the connection.* events show it: never a token, never a secret.
import type { ConnectionsTable } from "../../store/schema.ts";

export interface ConnectionView {
  id: string;
  provider_id: string;
  external_ref: string;
  status: "active" | "needs_reauth" | "deleted";
  scopes: string[];
  /** The connection this one replaced (same account, provider and external_ref), if any. */
  replaces: string | null;
  /** The connection that replaced this one, once a new connect for the same external_ref completed. */
  replaced_by: string | null;
  created_at: string;
  updated_at: string;
  last_refreshed_at: string | null;
  deleted_at: string | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function toConnectionView(row: ConnectionsTable): ConnectionView {
  return {
    id: row.id,
    provider_id: row.provider_id,
    external_ref: row.external_ref,
    status: row.status,
    scopes: JSON.parse(row.scopes) as string[],
    replaces: row.replaces,
    replaced_by: row.replaced_by,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
    last_refreshed_at: iso(row.last_refreshed_at),
    deleted_at: iso(row.deleted_at),
  };
}

/** The row after a state change, without reading it back. */
export const withChanges = (row: ConnectionsTable, changes: Partial<ConnectionsTable>): ConnectionsTable => ({
  ...row,
  ...changes,
});
