// A webhook receiver on Node's http module: collects the raw body, verifies Gateway-Signature with the SDK, answers
// 400 on a failed verification (so the gateway redelivers) and 200 at once otherwise, then hands the event on.
// Run: GATEWAY_WEBHOOK_SECRET=whsec_… node --conditions=@provider-gateway/source --import tsx examples/webhook-receiver-node.ts
import { createServer, type Server } from "node:http";
import { isWebhookVerificationError, verifyWebhook, type WebhookEvent } from "@provider-gateway/sdk";

export function createReceiver(options: { secret: string; onEvent: (event: WebhookEvent) => void }): Server {
  const seen = new Set<string>(); // delivery is at-least-once: dedupe on the event id (use your database in production)
  return createServer((req, res) => {
    if (req.method !== "POST") return void res.writeHead(405).end();
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      try {
        // The bytes exactly as received: parsing and re-serialising the JSON would break the signature.
        const event = await verifyWebhook({
          rawBody: Buffer.concat(chunks),
          header: req.headers["gateway-signature"],
          secret: options.secret,
        });
        res.writeHead(200).end(); // answer first: a slow answer counts as a timeout and is redelivered
        if (seen.has(event.id)) return;
        seen.add(event.id);
        options.onEvent(event);
      } catch (error) {
        res.writeHead(isWebhookVerificationError(error) ? 400 : 500).end();
      }
    });
  });
}

if (import.meta.filename === process.argv[1]) {
  const secret = process.env.GATEWAY_WEBHOOK_SECRET;
  if (!secret) throw new Error("Set GATEWAY_WEBHOOK_SECRET to the endpoint's whsec_… secret");
  const port = Number(process.env.PORT ?? 3000);
  createReceiver({ secret, onEvent: (event) => console.log(event.type, event.id, event.data.object) }).listen(port);
  console.log(`listening on http://localhost:${port}/`);
}
