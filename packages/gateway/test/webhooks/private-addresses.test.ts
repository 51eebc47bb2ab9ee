// The private-address guard of webhooks with GATEWAY_WEBHOOK_ALLOW_PRIVATE off: refused at registration, and refused
// again at delivery on the address actually resolved then, so that DNS rebinding cannot reach an internal service.
import { afterEach, describe, expect, it } from "vitest";
import type { ResolvedAddress } from "../../src/core/webhooks/resolver.ts";
import { startTestGateway, type TestGateway } from "../harness.ts";
import { eventually } from "./fake-clock.ts";
import { type Receiver, startReceiver } from "./receiver.ts";
import { deliveriesOf, fastWorker, sendTestEvent } from "./setup.ts";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

const dns: Record<string, ResolvedAddress[]> = {
  "hooks.example.com": [{ address: "93.184.216.34", family: 4 }],
  "internal.example.com": [{ address: "10.1.2.3", family: 4 }],
  "mixed.example.com": [
    { address: "93.184.216.34", family: 4 },
    { address: "fd00::1", family: 6 },
  ],
};

async function gateway(env: Record<string, string> = {}, resolve?: (host: string) => Promise<ResolvedAddress[]>) {
  const started = await startTestGateway({
    env: { ...fastWorker, GATEWAY_WEBHOOK_ALLOW_PRIVATE: "0", ...env },
    webhookResolver: resolve ?? (async (host) => dns[host] ?? Promise.reject(new Error("ENOTFOUND"))),
  });
  open.push(started);
  return started;
}

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  open.push(started);
  return started;
}

const set = (gw: TestGateway, url: string) => gw.call("platform", "set_webhook_endpoint", { url, event_types: ["*"] });

describe("webhook private-address guard", () => {
  it("refuses at registration: http, port 0, private, loopback, link-local targets and names resolving to them", async () => {
    const gw = await gateway();
    const refused = [
      "http://hooks.example.com/gateway",
      "https://127.0.0.1/hooks",
      "https://localhost./hooks",
      "https://10.0.0.5/hooks",
      "https://192.168.1.20/hooks",
      "https://169.254.169.254/latest/meta-data",
      "https://[::1]/hooks",
      "https://[fe80::1]/hooks",
      "https://[::ffff:127.0.0.1]/hooks",
      "https://internal.example.com/hooks",
      "https://mixed.example.com/hooks",
      "https://user:pass@hooks.example.com/hooks",
      "https://hooks.example.com:0/hooks",
      "https://93.184.216.34:0/hooks",
      "https://hooks.example.com/hooks#section",
      "https://hooks.example.com/hooks#",
      "not a url",
    ];
    for (const url of refused) {
      const response = await set(gw, url);
      expect(response.status, url).toBe(400);
      const body = (await response.json()) as { error: { code: string; details: { path: string }[] } };
      expect(body.error.code).toBe("invalid_request");
      expect(body.error.details[0]?.path).toBe("/url");
    }
    expect((await set(gw, "https://hooks.example.com/gateway")).status).toBe(200);
  });

  it("refuses IPv6 forms embedding a loopback IPv4 (NAT64 local-use, SIIT), naming the address", async () => {
    const gw = await gateway();
    for (const host of ["64:ff9b:1::7f00:1", "::ffff:0:7f00:1"]) {
      const body = (await (await set(gw, `https://[${host}]/x`)).json()) as { error: { message: string } };
      expect(body.error.message, host).toBe(
        `The webhook URL is not allowed: ${host} is a private, loopback or link-local address`,
      );
    }
  });

  it("says what is wrong with a port out of range or an IPv6 zone", async () => {
    const gw = await gateway();
    const messages: Record<string, string> = {
      "https://hooks.example.com:99999/x": "its port must be 1 to 65535",
      "https://hooks.example.com:8x/x": 'its port "8x" is not a number',
      "https://[fe80::1%25eth0]/x":
        "an IPv6 address with a zone (%…) names a local network interface and is not allowed",
    };
    for (const [url, message] of Object.entries(messages)) {
      const response = await set(gw, url);
      expect(response.status, url).toBe(400);
      const body = (await response.json()) as { error: { message: string; details: unknown } };
      expect(body.error.message, url).toBe(`The webhook URL is not allowed: ${message}`);
      expect(body.error.details, url).toEqual([{ path: "/url", message }]);
    }
  });

  it("says a URL of the wrong form with the input's other problems, in one answer", async () => {
    const gw = await gateway();
    const response = await gw.call("platform", "set_webhook_endpoint", {
      url: "http://hooks.example.com/gateway",
      event_types: ["*", "order.updated"],
      colour: "blue",
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string; details: { path: string }[] } };
    expect(body.error.message).toBe("The input of platform:set_webhook_endpoint is invalid");
    expect(body.error.details.map((d) => d.path).sort()).toEqual(["/colour", "/event_types", "/url"]);
    // Where private targets are allowed (development), http:// is too, and the refusal of another scheme says so.
    const permissive = await gateway({ GATEWAY_WEBHOOK_ALLOW_PRIVATE: "1", GATEWAY_NO_WEBHOOK_WORKER: "1" });
    const ftp = (await (await set(permissive, "ftp://hooks.example.com/x")).json()) as { error: { message: string } };
    expect(ftp.error.message).toBe("The webhook URL is not allowed: it must use https:// or http://");
  });

  it("refuses at delivery when the name now resolves to a private address (DNS rebinding)", async () => {
    const target = await receiver();
    const port = new URL(target.url).port;
    let lookups = 0;
    const gw = await gateway({}, async (host) => {
      if (host !== "rebind.example.com") throw new Error("ENOTFOUND");
      lookups++;
      return [{ address: lookups === 1 ? "93.184.216.34" : "127.0.0.1", family: 4 }];
    });
    expect((await set(gw, `https://rebind.example.com:${port}/hooks`)).status).toBe(200);
    const event = await sendTestEvent(gw);
    const delivery = await eventually(
      async () => (await deliveriesOf(gw, event.id))[0]?.attempts[0] && (await deliveriesOf(gw, event.id))[0],
    );
    expect(delivery.status).toBe("pending");
    expect(delivery.attempts[0]).toMatchObject({
      status_code: null,
      error: "refused: rebind.example.com resolves to 127.0.0.1, a private, loopback or link-local address",
    });
    expect(target.connections).toBe(0);
  });

  it("refuses at delivery an endpoint registered while private targets were allowed", async () => {
    const target = await receiver();
    const permissive = await gateway({ GATEWAY_WEBHOOK_ALLOW_PRIVATE: "1", GATEWAY_NO_WEBHOOK_WORKER: "1" });
    const port = new URL(target.url).port;
    expect((await set(permissive, `https://127.0.0.1:${port}/hooks`)).status).toBe(200);
    const event = await sendTestEvent(permissive);
    const strict = await startTestGateway({
      shareStoreWith: permissive,
      env: { ...fastWorker, GATEWAY_WEBHOOK_ALLOW_PRIVATE: "0" },
    });
    open.push(strict);
    const delivery = await eventually(async () => {
      const found = (await deliveriesOf(strict, event.id))[0];
      return found?.attempts[0] ? found : undefined;
    });
    expect(delivery.attempts[0]?.error).toBe("refused: 127.0.0.1 is a private, loopback or link-local address");
    expect(target.connections).toBe(0);
  });
});
