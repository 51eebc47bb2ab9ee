// Public surface of the sandbox package: build or start a simulated upstream by provider id.
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { sandboxBuilders } from "./registry.ts";
import type { SandboxHooks } from "./shared/push-hook.ts";

export { createDeliverySandbox, type DeliverySandboxOptions } from "./delivery/server.ts";
export { createDiningSandbox, type DiningSandboxOptions } from "./dining/server.ts";
export { createPaymentsSandbox, type PaymentsSandboxOptions } from "./payments/server.ts";
export { createRidesSandbox, type RidesSandboxOptions } from "./rides/server.ts";
export { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, DEFAULT_USERS } from "./shared/oauth/index.ts";
export { createPushHook, type PushHook, type SandboxHooks, signHook } from "./shared/push-hook.ts";
export { buildProducts, OFFLINE_SKU, priceAt, pricePeriod } from "./shopping/catalog.ts";
export { createShoppingSandbox, type ShoppingSandboxOptions } from "./shopping/server.ts";

export type SandboxProviderId = keyof typeof sandboxBuilders;

export interface SandboxOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  logger?: boolean;
  /** Where to push state changes (the gateway's POST /hooks/{provider_id}) and the secret to sign them with. */
  hooks?: SandboxHooks;
}

export interface RunningSandbox {
  providerId: string;
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:54321 */
  url: string;
  close(): Promise<void>;
}

export const sandboxProviderIds: readonly SandboxProviderId[] = Object.freeze(
  Object.keys(sandboxBuilders) as SandboxProviderId[],
);

export function isSandboxProviderId(value: string): value is SandboxProviderId {
  return Object.hasOwn(sandboxBuilders, value);
}

/** The sandbox's Fastify app, not listening: use `inject()` or `listen()` yourself. */
export function buildSandbox(providerId: SandboxProviderId, options: SandboxOptions = {}): FastifyInstance {
  const build = sandboxBuilders[providerId];
  if (build === undefined) throw new Error(`Unknown sandbox provider: ${String(providerId)}`);
  return build({
    ...(options.logger !== undefined && { logger: options.logger }),
    ...(options.hooks !== undefined && { hooks: options.hooks }),
  });
}

export async function startSandbox(
  providerId: SandboxProviderId,
  options: SandboxOptions = {},
): Promise<RunningSandbox> {
  const app = buildSandbox(providerId, options);
  await app.listen({ host: options.host ?? "127.0.0.1", port: options.port ?? 0 });
  const address = app.server.address() as AddressInfo;
  // A wildcard bind is reachable on loopback; the URL must name an address a client can connect to.
  const reachable = address.address === "0.0.0.0" ? "127.0.0.1" : address.address === "::" ? "::1" : address.address;
  const host = reachable.includes(":") ? `[${reachable}]` : reachable;
  return { providerId, url: `http://${host}:${address.port}`, close: () => app.close() };
}
