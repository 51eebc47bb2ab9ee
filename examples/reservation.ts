// Make a reservation and receive its confirmation webhook, end to end: rst_approval answers `pending`, the venue
// confirms later, and the gateway delivers a signed reservation.confirmed to the receiver started here. See docs/sdk.md.
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { GatewayClient, verifyWebhook, type WebhookEvent, type WebhookEventOf } from "@provider-gateway/sdk";

export async function reserveAndAwaitConfirmation(options: { baseUrl: string; apiKey: string; connectionId: string }) {
  const client = new GatewayClient(options); // connectionId: the diner's dining account, for credentials calls
  const received: WebhookEvent[] = [];
  let secret = "";
  let check = () => {};
  const receiver = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const header = req.headers["gateway-signature"];
    const event = await verifyWebhook({ rawBody: Buffer.concat(chunks), header, secret }).catch(() => undefined);
    res.writeHead(event ? 200 : 400).end(); // 400: not signed by the gateway with our secret
    if (event) received.push(event);
    check();
  }).listen(0, "127.0.0.1");
  await once(receiver, "listening");

  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`; // https:// outside development
  const { data: endpoint } = await client.platform.setWebhookEndpoint({ url, event_types: ["reservation.confirmed"] });
  // The secret is answered once, when the endpoint is created; an existing endpoint gets a new one here.
  secret = endpoint.secret ?? (await client.platform.rotateWebhookSecret({})).data.secret;

  const date = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
  const { data: slots } = await client.dining.listSlots({ restaurant_id: "rst_approval", date, party_size: 2 });
  const slot = slots.slots[0];
  if (!slot) throw new Error(`rst_approval has no free slot for 2 on ${date}`);
  const { data: reservation } = await client.dining.createReservation({
    restaurant_id: "rst_approval",
    slot_id: slot.id,
    party_size: 2,
    contact_name: "Hanako Yamada",
  }); // the SDK sends a generated Idempotency-Key, the same on every retry: one reservation, whatever happens
  console.log(`reservation ${reservation.id}: ${reservation.status}`);

  const confirmed = await new Promise<WebhookEventOf<"reservation.confirmed">>((resolve) => {
    check = () => {
      for (const e of received)
        if (e.type === "reservation.confirmed" && e.data.object.id === reservation.id) resolve(e);
    };
    check();
  });
  receiver.close();
  return confirmed;
}

if (import.meta.filename === process.argv[1]) {
  const { GATEWAY_URL: baseUrl = "http://localhost:8080", GATEWAY_API_KEY: apiKey = "" } = process.env;
  const connectionId = process.env.DINING_CONNECTION_ID ?? "";
  const event = await reserveAndAwaitConfirmation({ baseUrl, apiKey, connectionId });
  console.log(`${event.type} (${event.id}):`, event.data.object);
}
