// gateway sandbox: runs the sandbox upstreams as their own process (point GATEWAY_UPSTREAM_<ID>_URL at them). With
// --hooks-url, the providers that push state changes (a venue confirming a reservation, a courier's progress) push
// them to <url>/hooks/<provider_id>, signed with GATEWAY_HOOK_SECRET_<ID> — the gateway nodes need the same secret.
import { randomBytes } from "node:crypto";
import { Command } from "commander";
import { loadConfig } from "../config.ts";
import { Registry } from "../providers/registry.ts";

interface SandboxCommandOptions {
  host: string;
  portBase: string;
  hooksUrl?: string;
  json?: boolean;
}

export function sandboxCommand(): Command {
  return new Command("sandbox")
    .description("Run every provider's sandbox upstream in this process")
    .option("--host <host>", "interface to bind", "127.0.0.1")
    .option("--port-base <port>", "first port; each sandbox takes the next one (0: any free port)", "9100")
    .option(
      "--hooks-url <url>",
      "the gateway's URL (a node or the load balancer): providers push state changes to <url>/hooks/<provider_id>",
    )
    .option("--json", "print the upstream URLs as JSON")
    .action(async (options: SandboxCommandOptions) => {
      const sandbox = await import("@provider-gateway/sandbox");
      const base = Number(options.portBase);
      const providers = new Registry().providers.filter((p) => p.sandbox);
      const hooks = hookSettings(providers, options);
      const urls: Record<string, string> = {};
      for (const [index, provider] of providers.entries()) {
        const providerHooks = hooks.of(provider.id);
        const started = await sandbox.startSandbox(provider.sandbox as never, {
          host: options.host,
          port: base === 0 ? 0 : base + index,
          ...(providerHooks && { hooks: providerHooks }),
        });
        urls[provider.id] = started.url;
      }
      if (options.json) {
        process.stdout.write(`${JSON.stringify(urls)}\n`);
        return;
      }
      // Lines to paste into the gateway nodes' environment.
      for (const [id, url] of Object.entries(urls)) {
        process.stdout.write(`GATEWAY_UPSTREAM_${id.toUpperCase()}_URL=${url}\n`);
      }
      for (const [id, secret] of Object.entries(hooks.generated)) {
        process.stdout.write(`GATEWAY_HOOK_SECRET_${id.toUpperCase()}=${secret}\n`);
      }
      if (!options.hooksUrl && hooks.providers.length > 0) {
        process.stderr.write(
          `Without --hooks-url, the state changes of ${hooks.providers.join(", ")} reach no gateway ` +
            "(no reservation.confirmed, order.updated, ride.updated, payment.* events).\n",
        );
      }
    });
}

/**
 * Each hook-pushing provider's URL and secret: GATEWAY_HOOK_SECRET_<ID> when set, else (printed lines only) one made
 * here and printed once. With --json the secrets must come from the environment, since nothing else is printed.
 */
function hookSettings(providers: Registry["providers"], options: SandboxCommandOptions) {
  const pushing = providers.filter((p) => p.handleHook).map((p) => p.id);
  const generated: Record<string, string> = {};
  const secrets: Record<string, string> = {};
  const hooksUrl = options.hooksUrl?.replace(/\/$/, "");
  if (hooksUrl !== undefined) {
    if (!/^https?:\/\/[^/]/.test(hooksUrl)) throw new Error(`--hooks-url must be an http(s) URL, not "${hooksUrl}"`);
    const configured = loadConfig(process.env).hookSecrets;
    for (const id of pushing) {
      const secret = configured[id];
      if (secret) {
        secrets[id] = secret;
      } else if (options.json) {
        throw new Error(`--hooks-url with --json needs GATEWAY_HOOK_SECRET_${id.toUpperCase()} in the environment`);
      } else {
        secrets[id] = generated[id] = `whsec_${randomBytes(24).toString("base64url")}`;
      }
    }
  }
  return {
    providers: pushing,
    generated,
    of: (id: string) => {
      const secret = secrets[id];
      return hooksUrl === undefined || secret === undefined
        ? undefined
        : { url: () => `${hooksUrl}/hooks/${id}`, secret };
    },
  };
}
