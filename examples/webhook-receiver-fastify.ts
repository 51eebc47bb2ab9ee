// A webhook receiver on Fastify. The route keeps the body as a Buffer (a content-type parser scoped to this plugin,
// so the rest of the app still parses JSON), verifies it with the SDK, and answers 400 or 200 before doing the work.
// Run: GATEWAY_WEBHOOK_SECRET=whsec_… node --conditions=@provider-gateway/source --import tsx examples/webhook-receiver-fastify.ts
import { isWebhookVerificationError, verifyWebhook, type WebhookEvent } from "@provider-gateway/sdk";
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from "fastify";

export function webhookRoutes(options: { secret: string; onEvent: (event: WebhookEvent) => void }): FastifyPluginAsync {
  return async (app) => {
    // Raw body capture: inside this plugin only, application/json stays the bytes as received.
    app.addContentTypeParser("application/json", { parseAs: "buffer" }, (_request, body, done) => done(null, body));
    app.post("/webhooks/gateway", async (request, reply) => {
      try {
        const event = await verifyWebhook({
          rawBody: request.body as Buffer,
          header: request.headers["gateway-signature"],
          secret: options.secret,
        });
        setImmediate(() => options.onEvent(event)); // work after answering; dedupe on event.id in a real handler
        return reply.code(200).send();
      } catch (error) {
        if (isWebhookVerificationError(error)) return reply.code(400).send({ error: error.reason });
        throw error;
      }
    });
  };
}

export function buildReceiver(options: { secret: string; onEvent: (event: WebhookEvent) => void }): FastifyInstance {
  const app = Fastify();
  app.register(webhookRoutes(options));
  return app;
}

if (import.meta.filename === process.argv[1]) {
  const secret = process.env.GATEWAY_WEBHOOK_SECRET;
  if (!secret) throw new Error("Set GATEWAY_WEBHOOK_SECRET to the endpoint's whsec_… secret");
  const app = buildReceiver({ secret, onEvent: (event) => console.log(event.type, event.id, event.data.object) });
  const address = await app.listen({ port: Number(process.env.PORT ?? 3000) });
  console.log(`listening on ${address}/webhooks/gateway`);
}
