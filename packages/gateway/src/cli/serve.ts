// gateway serve: runs the gateway until SIGTERM or SIGINT, then (after GATEWAY_SHUTDOWN_DELAY_MS, serving on but not
// ready) stops accepting, finishes in-flight requests and closes its pools. On the first start of an empty store it
// creates the account "default" and one key, printed on a terminal, or else written to a file in the data directory
// that only its owner can read (never into the log).
import { lookup } from "node:dns/promises";
import fs from "node:fs";
import path from "node:path";
import { Command } from "commander";
import { loadConfig } from "../config.ts";
import { parseHost, parsePort } from "../config-values.ts";
import { createGateway, type Gateway } from "../gateway.ts";
import { makeDataDir } from "../store/data-dir.ts";
import { gatewayVersion } from "../version.ts";
import { nonBlockingStandardOutput, turnBatchedDestination } from "./log-destination.ts";
import { applyServingV8Settings } from "./v8-settings.ts";

export function serveCommand(): Command {
  return new Command("serve")
    .description("Start the gateway (embedded SQLite and in-process sandboxes unless configured otherwise)")
    .option("--port <port>", "port to listen on (default: PORT or 8080)")
    .option("--host <host>", "interface to bind (default: HOST or 127.0.0.1)")
    .action(async (options: { port?: string; host?: string }) => {
      applyServingV8Settings();
      // Given, even empty, a flag is checked: an empty one is not a value to fall back from.
      if (options.port !== undefined) parsePort("--port", options.port);
      if (options.host !== undefined) parseHost("--host", options.host);
      const env = {
        ...process.env,
        ...(options.port !== undefined && { PORT: options.port }),
        ...(options.host !== undefined && { HOST: options.host }),
      };
      const config = loadConfig(env);
      await resolvable(config.host, options.host ? "--host" : "HOST");
      // One write of the turn's log lines at the end of each turn of the event loop; shutdown flushes them. A reader
      // that stops reading costs log lines (counted in /metrics, and said once it reads again), never requests.
      let gateway: Gateway | undefined;
      let droppedBeforeStart = 0;
      const logStream = turnBatchedDestination({
        fd: nonBlockingStandardOutput(),
        maxPendingBytes: config.logBufferBytes,
        onDrop: (lines) => {
          if (gateway) gateway.metrics.logLinesDropped.inc(lines);
          else droppedBeforeStart += lines;
        },
        onResume: (lines) =>
          gateway?.app.log.warn({ dropped_lines: lines }, "standard output was not read: log lines were dropped"),
      });
      gateway = await createGateway({ config, logger: { level: config.logLevel, stream: logStream } });
      gateway.metrics.logLinesDropped.inc(droppedBeforeStart);
      await bootstrap(gateway, config.dataDir);
      let url: string;
      try {
        url = await gateway.listen();
      } catch (error) {
        // Nothing else would end the process: the pools, sandboxes and workers keep it alive.
        await gateway.close().catch(() => {});
        logStream.flushSync();
        throw error;
      }
      gateway.app.log.info(
        { url, version: gatewayVersion, store: gateway.core.store.kind, upstreams: gateway.upstreamUrls },
        "gateway listening",
      );
      if (config.port === 0 && !process.env.GATEWAY_PUBLIC_URL) {
        gateway.app.log.warn(
          { url, public_url: gateway.core.publicUrl },
          "PORT is 0 and GATEWAY_PUBLIC_URL is unset: connect links and /openapi.json name port 0; set GATEWAY_PUBLIC_URL",
        );
      }
      let stopping = false;
      const stop = (signal: string) => {
        // A second signal during the drain (an operator out of patience) ends the process at once, as the timeout
        // does, but says so: left to Node's default it would die silently, losing the log lines not yet written.
        if (stopping) {
          gateway.app.log.error({ signal }, "second signal during shutdown: exiting without finishing it");
          logStream.flushSync();
          process.exit(1);
        }
        stopping = true;
        gateway.stopping();
        // A load balancer that routes by readiness needs a few probes to take the node out: until then it keeps
        // serving, only /readyz saying it is shutting down, so that no client meets a refused connection.
        if (config.shutdownDelayMs > 0) {
          gateway.app.log.info(
            { signal, delay_ms: config.shutdownDelayMs },
            "shutting down: not ready, serving on until GATEWAY_SHUTDOWN_DELAY_MS has passed",
          );
          setTimeout(() => drain(signal), config.shutdownDelayMs);
        } else {
          drain(signal);
        }
      };
      const drain = (signal: string) => {
        gateway.app.log.info({ signal }, "shutting down: finishing in-flight requests");
        // A drain that cannot end (a store that stopped answering holds its pool open) does not hold the process.
        setTimeout(() => {
          gateway.app.log.error(
            { timeout_ms: config.shutdownTimeoutMs },
            "shutdown did not finish in time (GATEWAY_SHUTDOWN_TIMEOUT_MS): exiting without it",
          );
          logStream.flushSync();
          process.exit(1);
        }, config.shutdownTimeoutMs).unref();
        gateway.close().then(
          () => {
            gateway.app.log.info({ signal }, "shut down: every request answered and the pools closed");
            logStream.flushSync();
            process.exit(0);
          },
          (error: unknown) => {
            gateway.app.log.error({ err: error }, "shutdown failed");
            process.exit(1);
          },
        );
      };
      process.on("SIGTERM", () => stop("SIGTERM"));
      process.on("SIGINT", () => stop("SIGINT"));
    });
}

/** A host name that names no address fails here, before the first start of a store creates anything. */
async function resolvable(host: string, name: string): Promise<void> {
  try {
    await lookup(host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new Error(`${name} "${host}" does not resolve to an address to listen on (${code})`);
  }
}

async function bootstrap(gateway: Gateway, dataDir: string): Promise<void> {
  const { accounts, apiKeys } = gateway.core;
  if (!(await accounts.claimFirstStart())) return;
  await accounts.ensure("default");
  const { key, view } = await apiKeys.create({ accountId: "default", name: "first key", scopes: ["*"] });
  // Standard output that is not a terminal is a log stream, kept and shipped: the key goes to a file only its owner can
  // read, and the log says where.
  if (!process.stdout.isTTY) {
    const file = path.join(dataDir, "first-api-key");
    makeDataDir(dataDir);
    fs.writeFileSync(file, `${key}\n`, { mode: 0o600 });
    gateway.app.log.warn(
      { account: "default", key_id: view.id, file },
      "created the account default and its first API key (scope *): the key is in this file, readable by this user only, and shown nowhere else; store it and delete the file",
    );
    return;
  }
  process.stdout.write(
    [
      "",
      '  Created the account "default" and an API key with scope "*".',
      "  It is shown this once; store it now:",
      "",
      `    ${key}`,
      "",
      `  Try: curl -s -X POST ${gateway.core.publicUrl}/v1/opendata/lookup_postal_code \\`,
      `         -H "Authorization: Bearer ${key}" -H "Content-Type: application/json" -d '{"postal_code":"1000001"}'`,
      "",
      "",
    ].join("\n"),
  );
}
