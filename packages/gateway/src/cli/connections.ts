// gateway connections create|list. `create` runs the real connect flow non-interactively through the running
// gateway (its sandbox's login and consent forms, as the demo user). The connect session comes from the API when a
// key is given (--key or GATEWAY_API_KEY: platform:create_connect_session, the key's account), else straight from
// the store the gateway uses (same GATEWAY_DATA_DIR / GATEWAY_DATABASE_URL, --account, default "default").
import path from "node:path";
import { Command } from "commander";
import { loadConfig } from "../config.ts";
import { httpUrl } from "../config-values.ts";
import { Accounts } from "../core/accounts.ts";
import { insertConnectSession } from "../core/connections/connect-sessions.ts";
import { type ConnectionView, toConnectionView } from "../core/connections/views.ts";
import { Registry } from "../providers/registry.ts";
import type { Store } from "../store/database.ts";
import { runConnectFlow } from "./connect-flow.ts";
import { clock, fetchOrSay, print, printable, requireAccount, withStore } from "./shared.ts";

interface Common {
  url?: string;
  key?: string;
  account?: string;
  json?: boolean;
}

// The gateway this machine's configuration describes (GATEWAY_PUBLIC_URL, else localhost on PORT), unless --url says.
const gatewayUrl = (options: Common) => (options.url ?? loadConfig().publicUrl).replace(/\/$/, "");

/**
 * The running gateway's public URL, which it names in its OpenAPI document: a connect link must be opened there, since
 * the provider sends the browser back there, and the flow's cookie belongs to that origin. `--url` may be another name
 * of the same gateway (127.0.0.1 for localhost).
 */
async function publicUrlOf(options: Common): Promise<string> {
  const response = await fetchOrSay(`${gatewayUrl(options)}/openapi.json`, {});
  const document = (await response.json().catch(() => ({}))) as { servers?: { url?: unknown }[] };
  const named = document.servers?.[0]?.url;
  return typeof named === "string" && response.ok ? named.replace(/\/$/, "") : gatewayUrl(options);
}
const apiKey = (options: Common) => options.key ?? (process.env.GATEWAY_API_KEY || undefined);

interface Envelope {
  data: Record<string, unknown>;
  pagination?: { next_cursor: string | null } | null;
  error?: { code: string; message: string };
}

const notReached = "; is the gateway running there? Give its URL with --url or GATEWAY_PUBLIC_URL";

async function platform(options: Common, operation: string, body: unknown): Promise<Envelope> {
  const url = `${gatewayUrl(options)}/v1/platform/${operation}`;
  const response = await fetchOrSay(
    url,
    {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey(options)}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    },
    notReached,
  );
  // Another server at --url (a wrong port, a proxy's error page) answers something else than the gateway's envelope:
  // said as such, rather than as the JSON parser's complaint about its first character.
  const json = (await response.json().catch(() => undefined)) as Envelope | undefined;
  if (typeof json?.data !== "object" && typeof json?.error !== "object") {
    const type = response.headers.get("content-type")?.split(";")[0] || "no content type";
    throw new Error(
      `${operation}: ${new URL(url).origin} answered HTTP ${response.status} with ${type}, not the gateway's JSON${notReached}`,
    );
  }
  if (!response.ok)
    throw new Error(`${operation}: ${json.error?.code ?? response.status}: ${json.error?.message ?? ""}`);
  return json;
}

async function listFromApi(options: Common, filter: Record<string, string>): Promise<ConnectionView[]> {
  const all: ConnectionView[] = [];
  let cursor: string | undefined;
  do {
    const page = await platform(options, "list_connections", { ...filter, limit: 100, ...(cursor && { cursor }) });
    all.push(...(page.data.connections as ConnectionView[]));
    cursor = page.pagination?.next_cursor ?? undefined;
  } while (cursor);
  return all;
}

async function listFromStore(store: Store, accountId: string, filter: { provider?: string; externalRef?: string }) {
  let query = store.db
    .selectFrom("connections")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("status", "in", ["active", "needs_reauth"]);
  if (filter.provider) query = query.where("provider_id", "=", filter.provider);
  if (filter.externalRef) query = query.where("external_ref", "=", filter.externalRef);
  return (await query.orderBy("created_at", "desc").orderBy("id", "desc").execute()).map(toConnectionView);
}

/** Without a key, a provider without connections (a typo) is refused as the API does, not listed as having none. */
function refuseProviderWithoutConnections(registry: Registry, providerId: string): void {
  if (registry.provider(providerId)?.oauth) return;
  const connectable = registry.providers.filter((p) => p.oauth).map((p) => p.id);
  throw new Error(`${providerId} is not a provider with connections; these are: ${connectable.join(", ")}`);
}

function refuseAccountWithKey(options: Common): void {
  if (apiKey(options) && options.account !== undefined) {
    throw new Error("--account applies without a key; with a key the connection belongs to the key's account");
  }
}

export function connectionsCommand(): Command {
  const connections = new Command("connections").description(
    "Create (through the running gateway) and list connections",
  );
  const common = (command: Command) =>
    command
      // Checked as GATEWAY_PUBLIC_URL is, before anything is written or a key sent: paths are appended to it.
      .option(
        "--url <url>",
        "the running gateway's public URL (default GATEWAY_PUBLIC_URL, else http://localhost:$PORT)",
        (value: string) => httpUrl("--url", value),
      )
      .option("--key <key>", "an API key (default GATEWAY_API_KEY); without one the store is opened directly")
      .option("--account <id>", 'account, when no key is given (default "default")')
      .option("--json", "print JSON");

  common(connections.command("create"))
    .description("Run the connect flow against the provider's sandbox as its demo user and print the connection")
    .requiredOption("--provider <id>", "provider with credentials operations, e.g. shopping")
    .requiredOption("--external-ref <ref>", "your reference for the end user (one live connection per ref)")
    .option("--username <name>", "the sandbox user to sign in as", "demo")
    .option("--password <password>", "that user's password", "demo")
    .action(async (options: Common & { provider: string; externalRef: string; username: string; password: string }) => {
      refuseAccountWithKey(options);
      const filter = { provider_id: options.provider, external_ref: options.externalRef };
      let connectUrl: string;
      const accountId = options.account ?? "default";
      if (apiKey(options)) {
        connectUrl = (await platform(options, "create_connect_session", filter)).data.connect_url as string;
      } else {
        const registry = new Registry();
        // Straight to the store: the same input check as platform:create_connect_session, with the options' names.
        const check = registry.operation("platform", "create_connect_session")?.validateInput;
        if (check && !check(filter)) {
          const flags: Record<string, string> = { "/provider_id": "--provider", "/external_ref": "--external-ref" };
          const problems = (check.errors ?? []).map((e) => `${flags[e.instancePath] ?? e.instancePath} ${e.message}`);
          throw new Error(problems.join("; "));
        }
        refuseProviderWithoutConnections(registry, options.provider);
        const { token } = await withStore(async (store) => {
          // An account named on the command line must exist (a mistyped one would get a live grant of its own);
          // "default", the one a first start makes, is made if the store is still new.
          if (options.account === undefined) await new Accounts(store.db, clock).ensure(accountId);
          else await requireAccount(store, accountId);
          return insertConnectSession(store.db, clock, {
            accountId,
            providerId: options.provider,
            externalRef: options.externalRef,
          });
        });
        connectUrl = `${await publicUrlOf(options)}/connect/${token}`;
      }
      const flow = await runConnectFlow({ connectUrl, username: options.username, password: options.password });
      if (!flow.ok) {
        // Without a key the session was written straight to this command's store: a gateway on another store does not
        // know the link (404), which is the likeliest reason, and is said with where the session went.
        const elsewhere =
          !apiKey(options) && flow.page.status === 404
            ? `; the connect session was written to ${storeName()}, so the gateway at ${connectUrl.split("/connect/")[0]} must use the same store (set GATEWAY_DATA_DIR or GATEWAY_DATABASE_URL as it has them), or pass --key to go through its API`
            : "";
        throw new Error(
          `the connect flow ended without a connection (HTTP ${flow.page.status}): ${flow.message}${elsewhere}`,
        );
      }
      const [connection] = apiKey(options)
        ? await listFromApi(options, filter)
        : await withStore((store) =>
            listFromStore(store, accountId, { provider: options.provider, externalRef: options.externalRef }),
          );
      if (!connection) throw new Error("the flow succeeded but no connection was found");
      const { id, provider_id, external_ref } = connection;
      print(
        options.json === true,
        { id, provider_id, external_ref },
        `Connected ${id} (${provider_id}, external_ref ${external_ref}).`,
      );
    });

  common(connections.command("list"))
    .description("List live connections (active or needs_reauth), newest first")
    .option("--provider <id>", "only this provider's")
    .option("--external-ref <ref>", "only this external_ref's")
    .action(async (options: Common & { provider?: string; externalRef?: string }) => {
      refuseAccountWithKey(options);
      if (!apiKey(options) && options.provider) {
        refuseProviderWithoutConnections(new Registry(), options.provider);
      }
      const list = apiKey(options)
        ? await listFromApi(options, {
            ...(options.provider && { provider_id: options.provider }),
            ...(options.externalRef && { external_ref: options.externalRef }),
          })
        : await withStore((store) => listFromStore(store, options.account ?? "default", options));
      const lines = list.map(
        (c) => `${c.id}  ${c.provider_id}  ${c.status}  ${printable(c.external_ref)}  ${c.created_at}`,
      );
      print(options.json === true, list, lines.join("\n") || "No connections.");
    });
  return connections;
}

/** The store this command uses, as a person would name it (never a database URL, which may hold a password). */
function storeName(): string {
  const config = loadConfig();
  return config.databaseUrl
    ? "the PostgreSQL database of GATEWAY_DATABASE_URL"
    : path.resolve(config.dataDir, "gateway.db");
}
