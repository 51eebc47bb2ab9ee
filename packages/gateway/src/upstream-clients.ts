// One HTTP client per provider upstream (providers/upstream.ts), each call timed into the metrics. A provider left
// without an upstream answers 500 internal_error when called, rather than keeping the gateway from starting.
import { GatewayError } from "./core/errors.ts";
import type { Metrics } from "./http/metrics.ts";
import type { Registry } from "./providers/registry.ts";
import { createUpstreamClient, type SharedUpstreamClient } from "./providers/upstream.ts";

export interface UpstreamClients {
  /** The client of a provider's upstream (each request takes its own view of it: forRequest). */
  of(providerId: string): SharedUpstreamClient;
  close(): Promise<void>;
}

export function createUpstreamClients(
  registry: Registry,
  urls: Record<string, string>,
  timeoutMs: number,
  metrics: Pick<Metrics, "upstreamDuration">,
): UpstreamClients {
  const clients = new Map<string, SharedUpstreamClient>();
  for (const [providerId, baseUrl] of Object.entries(urls)) {
    clients.set(
      providerId,
      createUpstreamClient({
        providerId,
        baseUrl,
        timeoutMs,
        errorMessage: registry.provider(providerId)?.upstreamErrorMessage,
        onCall: ({ status, seconds }) =>
          metrics.upstreamDuration.observe({ provider: providerId, status: String(status) }, seconds),
      }),
    );
  }
  return {
    of: (providerId) => clients.get(providerId) ?? noUpstream(providerId),
    async close() {
      await Promise.all([...clients.values()].map((client) => client.close()));
    },
  };
}

function noUpstream(providerId: string): SharedUpstreamClient {
  const client: SharedUpstreamClient = {
    baseUrl: "",
    request: () => Promise.reject(new GatewayError("internal_error", `The ${providerId} provider has no upstream`)),
    forRequest: () => client,
    close: async () => {},
  };
  return client;
}
