// Where each provider's upstream lives: GATEWAY_UPSTREAM_<ID>_URL when configured, else an in-process sandbox on a
// loopback port (reached over real HTTP like any upstream).

import { randomBytes } from "node:crypto";
import type { GatewayConfig } from "./config.ts";
import type { ProviderDefinition } from "./providers/types.ts";

export interface Upstreams {
  urls: Record<string, string>;
  close(): Promise<void>;
}

/** Where an in-process sandbox pushes its hooks, and the secret it signs them with. */
export interface SandboxHooks {
  url: () => string;
  secret: string;
}

/**
 * Settings that name a provider this gateway does not have, or one that takes no such setting (a misspelt id would
 * otherwise be ignored, and the gateway would quietly start a sandbox or refuse hooks): the first problem, as a
 * message naming the variable and the providers that take it; undefined when there is none.
 */
export function misnamedProviderSetting(
  providers: readonly ProviderDefinition[],
  config: Pick<GatewayConfig, "upstreamUrls" | "hookSecrets" | "oauthClients">,
): string | undefined {
  const settings = [
    {
      ids: Object.keys(config.upstreamUrls),
      variable: (id: string) => `GATEWAY_UPSTREAM_${id.toUpperCase()}_URL`,
      what: "an upstream",
      none: "no upstream",
      takes: (p: ProviderDefinition) => p.sandbox !== undefined,
    },
    {
      ids: Object.keys(config.hookSecrets),
      variable: (id: string) => `GATEWAY_HOOK_SECRET_${id.toUpperCase()}`,
      what: "inbound hooks",
      none: "no inbound hooks",
      takes: (p: ProviderDefinition) => p.handleHook !== undefined,
    },
    {
      ids: Object.keys(config.oauthClients),
      variable: (id: string) => `GATEWAY_OAUTH_${id.toUpperCase()}_*`,
      what: "OAuth connections",
      none: "no OAuth connections",
      takes: (p: ProviderDefinition) => p.oauth !== undefined,
    },
  ];
  for (const { ids, variable, what, none, takes } of settings) {
    const taking = providers.filter(takes).map((p) => p.id);
    const wrong = ids.find((id) => !taking.includes(id));
    if (wrong === undefined) continue;
    const known = providers.some((p) => p.id === wrong);
    return `${variable(wrong)}: ${known ? `the provider ${wrong} has ${none}` : `there is no provider ${wrong}`}; the providers with ${what} are ${taking.join(", ") || "none"}`;
  }
  return undefined;
}

/**
 * The hook secret of every provider that handles hooks: GATEWAY_HOOK_SECRET_<ID>, or, for a provider whose sandbox
 * runs in this process, one generated now and handed to that sandbox.
 */
export function hookSecretsFor(
  providers: readonly ProviderDefinition[],
  config: Pick<GatewayConfig, "upstreamUrls" | "startSandboxes" | "hookSecrets">,
): Record<string, string> {
  const secrets: Record<string, string> = {};
  for (const provider of providers) {
    if (!provider.handleHook) continue;
    const configured = config.hookSecrets[provider.id];
    if (configured) secrets[provider.id] = configured;
    else if (provider.sandbox && !config.upstreamUrls[provider.id] && config.startSandboxes) {
      secrets[provider.id] = `whsec_${randomBytes(24).toString("base64url")}`;
    }
  }
  return secrets;
}

/** The start's error when sandboxes are off and a provider has no upstream configured; undefined when all have one. */
export function missingUpstreams(
  providers: readonly ProviderDefinition[],
  config: Pick<GatewayConfig, "upstreamUrls" | "startSandboxes">,
): string | undefined {
  if (config.startSandboxes) return undefined;
  const missing = providers.filter((p) => p.sandbox !== undefined && !config.upstreamUrls[p.id]).map((p) => p.id);
  return missing.length === 0
    ? undefined
    : `No upstream configured for ${missing.join(", ")} (set GATEWAY_UPSTREAM_<ID>_URL)`;
}

export async function startUpstreams(
  providers: readonly ProviderDefinition[],
  config: Pick<GatewayConfig, "upstreamUrls" | "startSandboxes">,
  hooks: (providerId: string) => SandboxHooks | undefined = () => undefined,
): Promise<Upstreams> {
  const urls: Record<string, string> = {};
  const running: { close(): Promise<void> }[] = [];
  const needed = providers.filter((p) => p.sandbox !== undefined);
  for (const provider of needed) {
    const configured = config.upstreamUrls[provider.id];
    if (configured) urls[provider.id] = configured;
  }
  const missing = missingUpstreams(providers, config);
  if (missing) throw new Error(missing);
  const toStart = needed.filter((p) => urls[p.id] === undefined);
  if (toStart.length > 0) {
    const sandbox = await import("@provider-gateway/sandbox");
    for (const provider of toStart) {
      const providerHooks = hooks(provider.id);
      const started = await sandbox.startSandbox(
        provider.sandbox as never,
        providerHooks ? { hooks: providerHooks } : {},
      );
      running.push(started);
      urls[provider.id] = started.url;
    }
  }
  return {
    urls,
    async close() {
      await Promise.all(running.map((r) => r.close()));
    },
  };
}
