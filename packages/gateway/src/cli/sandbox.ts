// gateway sandbox: runs the sandbox upstreams as their own process (point GATEWAY_UPSTREAM_<ID>_URL at them). With
// --hooks-url, the providers that push state changes (a venue confirming a reservation, a courier's progress) push
// them to <url>/hooks/<provider_id>, signed with GATEWAY_HOOK_SECRET_<ID> — the gateway nodes need the same secret.
import { Command } from "commander";
import { loadConfig } from "../config.ts";
import { httpUrl, parseHost, parsePort } from "../config-values.ts";
import { Registry } from "../providers/registry.ts";
import { hookSecretsFor, misnamedProviderSetting } from "../upstreams.ts";

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
      const all = new Registry().providers;
      const providers = all.filter((p) => p.sandbox);
      parseHost("--host", options.host);
      const base = parsePort("--port-base", options.portBase);
      const last = base + providers.length - 1;
      if (base !== 0 && last > 65_535) {
        throw new Error(
          `--port-base ${base} is too high: the ${providers.length} sandboxes take ports ${base} to ${last}, past 65535`,
        );
      }
      const hooks = hookSettings(all, options);
      const sandbox = await import("@provider-gateway/sandbox");
      const urls: Record<string, string> = {};
      const running: { close(): Promise<void> }[] = [];
      for (const [index, provider] of providers.entries()) {
        const providerHooks = hooks.of(provider.id);
        try {
          const started = await sandbox.startSandbox(provider.sandbox as never, {
            host: options.host,
            port: base === 0 ? 0 : base + index,
            ...(providerHooks && { hooks: providerHooks }),
          });
          running.push(started);
          urls[provider.id] = started.url;
        } catch (error) {
          // Some sandboxes up and others not is no sandbox to point a gateway at: stop those started, and fail.
          await Promise.allSettled(running.map((started) => started.close()));
          throw new Error(`the ${provider.id} sandbox could not start: ${(error as Error).message}`);
        }
      }
      // Stopped as `serve` is: the sandboxes close, and the exit status is 0.
      const stop = async () => {
        await Promise.allSettled(running.map((started) => started.close()));
        process.exit(0);
      };
      process.once("SIGTERM", () => void stop());
      process.once("SIGINT", () => void stop());
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
 * Each hook-pushing provider's URL and secret: GATEWAY_HOOK_SECRET_<ID> when set, else one made as for an in-process
 * sandbox (hookSecretsFor) and printed once. With --json the secrets must come from the environment, since nothing
 * but the URLs is printed.
 */
function hookSettings(providers: Registry["providers"], options: SandboxCommandOptions) {
  const pushing = providers.filter((p) => p.handleHook).map((p) => p.id);
  const hooksUrl = options.hooksUrl?.replace(/\/$/, "");
  let secrets: Record<string, string> = {};
  let generated: Record<string, string> = {};
  if (hooksUrl !== undefined) {
    httpUrl("--hooks-url", hooksUrl);
    const config = loadConfig(process.env);
    const misnamed = misnamedProviderSetting(providers, {
      ...config,
      upstreamUrls: {},
      oauthClients: {},
    });
    if (misnamed) throw new Error(misnamed);
    // Every sandbox runs in this process, whatever upstream URLs the environment names.
    secrets = hookSecretsFor(providers, { ...config, upstreamUrls: {}, startSandboxes: true });
    generated = Object.fromEntries(Object.entries(secrets).filter(([id]) => !config.hookSecrets[id]));
    const missing = Object.keys(generated)[0];
    if (options.json && missing !== undefined) {
      throw new Error(`--hooks-url with --json needs GATEWAY_HOOK_SECRET_${missing.toUpperCase()} in the environment`);
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
