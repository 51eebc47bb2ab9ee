// The one list of migrations, shared by SQLite and PostgreSQL. Add a file and one line here; never edit a shipped one.
import type { Migration, MigrationProvider } from "kysely";
import * as accountsAndKeys from "./0001_accounts_and_keys.ts";
import * as eventsAndWebhooks from "./0002_events_and_webhooks.ts";
import * as idempotency from "./0003_idempotency.ts";
import * as connections from "./0004_connections.ts";
import * as consoleTables from "./0005_console.ts";
import * as providerResources from "./0006_provider_resources.ts";
import * as storeSettings from "./0007_store_settings.ts";
import * as delegationSessions from "./0008_delegation_sessions.ts";
import * as unownedHistory from "./0009_unowned_history.ts";
import * as connectSessionsExpiry from "./0010_connect_sessions_expiry.ts";
import * as consoleEmailsNfc from "./0011_console_emails_nfc.ts";
import * as connectionsDeleted from "./0012_connections_deleted.ts";
import * as deliveriesEndpointDue from "./0013_deliveries_endpoint_due.ts";

const migrations: Record<string, Migration> = {
  "0001_accounts_and_keys": accountsAndKeys,
  "0002_events_and_webhooks": eventsAndWebhooks,
  "0003_idempotency": idempotency,
  "0004_connections": connections,
  "0005_console": consoleTables,
  "0006_provider_resources": providerResources,
  "0007_store_settings": storeSettings,
  "0008_delegation_sessions": delegationSessions,
  "0009_unowned_history": unownedHistory,
  "0010_connect_sessions_expiry": connectSessionsExpiry,
  "0011_console_emails_nfc": consoleEmailsNfc,
  "0012_connections_deleted": connectionsDeleted,
  "0013_deliveries_endpoint_due": deliveriesEndpointDue,
};

export const migrationProvider: MigrationProvider = { getMigrations: async () => migrations };
