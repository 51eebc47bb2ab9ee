// gateway sandbox: runs the sandbox upstreams as their own process (point GATEWAY_UPSTREAM_<ID>_URL at them).
import { Command } from "commander";
import { Registry } from "../providers/registry.ts";

export function sandboxCommand(): Command {
  return new Command("sandbox")
    .description("Run every provider's sandbox upstream in this process")
    .option("--host <host>", "interface to bind", "127.0.0.1")
    .option("--port-base <port>", "first port; each sandbox takes the next one (0: any free port)", "9100")
    .option("--json", "print JSON")
    .action(async (options: { host: string; portBase: string; json?: boolean }) => {
      const sandbox = await import("@provider-gateway/sandbox");
      const base = Number(options.portBase);
      const urls: Record<string, string> = {};
      const providers = new Registry().providers.filter((p) => p.sandbox);
      for (const [index, provider] of providers.entries()) {
        const started = await sandbox.startSandbox(provider.sandbox as never, {
          host: options.host,
          port: base === 0 ? 0 : base + index,
        });
        urls[provider.id] = started.url;
      }
      if (options.json) process.stdout.write(`${JSON.stringify(urls)}\n`);
      else
        for (const [id, url] of Object.entries(urls))
          process.stdout.write(`GATEWAY_UPSTREAM_${id.toUpperCase()}_URL=${url}\n`);
    });
}
