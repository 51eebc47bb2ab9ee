// POST /hooks/{provider_id}: state changes pushed by provider upstreams, signed with the provider's hook secret.
// A bad signature is a 400 with the error envelope; a repeated hook id is answered 200 and not processed again.
// The body is read as bytes and parsed only once its signature matches: nothing of an unsigned body is looked at.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { notFound } from "../core/errors.ts";
import { acceptInboundHook } from "../core/events/inbound-hooks.ts";
import { printable } from "../core/printable.ts";
import type { CoreServices } from "../core/services.ts";
import type { Registry } from "../providers/registry.ts";
import type { SharedUpstreamClient } from "../providers/upstream.ts";
import { bodyLimitBytes } from "./body.ts";

export interface HooksOptions {
  core: CoreServices;
  registry: Registry;
  /** The hook secret of each provider that accepts hooks. */
  hookSecret(providerId: string): string | undefined;
  upstream(providerId: string): SharedUpstreamClient;
}

export function hooksRoutes(options: HooksOptions) {
  return async function hooks(app: FastifyInstance): Promise<void> {
    // This plugin's own context: its routes keep the raw bytes of any body, whatever its content type.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: bodyLimitBytes }, (request, body, done) => {
      (request as FastifyRequest).rawBody = body as Buffer;
      done(null, undefined);
    });
    app.post<{ Params: { provider: string } }>("/hooks/:provider", async (request) => {
      const providerId = request.params.provider;
      const provider = options.registry.provider(providerId);
      const secret = options.hookSecret(providerId);
      if (!provider?.handleHook || secret === undefined) {
        throw notFound(`No inbound hooks for "${printable(providerId)}"`);
      }
      request.operationLabel = { provider: providerId, operation: "hook" };
      const signature = request.headers["gateway-signature"];
      const result = await acceptInboundHook(options.core, {
        providerId,
        rawBody: request.rawBody ?? Buffer.alloc(0),
        signatureHeader: Array.isArray(signature) ? signature.join(",") : signature,
        secret,
        handle: provider.handleHook.bind(provider),
        context: {
          providerId,
          core: options.core,
          clock: options.core.clock,
          // A call the hook's handling makes upstream carries the hook request's id.
          upstream: options.upstream(providerId).forRequest(request.id),
        },
      });
      return { received: true, duplicate: result.duplicate };
    });
  };
}
